package io.github.llmthrottle.actuate;

import java.time.Instant;

import io.github.llmthrottle.quota.TokenQuotas.QuotaState;
import org.jspecify.annotations.Nullable;

/**
 * What is left of one token quota in the window in force.
 *
 * @param scope {@code model}, {@code client} or {@code tenant}
 * @param client the client of a model or client quota
 * @param model the model of a model quota
 * @param tenant the tenant of a tenant quota, when tenant ids are shown
 * @param window {@code day} or {@code month} (calendar, UTC)
 * @param limit the quota in input plus output tokens
 * @param used the tokens counted in the window so far (calls in flight at their estimate)
 * @param remaining what is left
 * @param resetsAt when the window ends and the count starts again from zero
 * @param exhausted whether nothing is left, or the quota refused the last call that asked
 * it for tokens in this window
 */
public record QuotaDescriptor(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
        String window, long limit, long used, long remaining, Instant resetsAt, boolean exhausted) {

    static QuotaDescriptor of(QuotaState state, boolean showTenant) {
        return new QuotaDescriptor(state.scope(), state.client(), state.model(), showTenant ? state.tenant() : null,
                state.window().tag(), state.limit(), state.used(), state.remaining(), state.resetsAt(),
                state.exhausted());
    }

}
