package io.github.llmthrottle.limit;

import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The per-minute limits of one tenant on one model ({@code llm.throttle.tenants}). They
 * apply on top of the model's own limits, in buckets of their own per client, model and
 * tenant. A {@code null} value means "no tenant limit" for that dimension.
 *
 * @param requestsPerMinute requests per minute, or {@code null}
 * @param inputTokensPerMinute input tokens per minute, or {@code null}
 * @param outputTokensPerMinute output tokens per minute, or {@code null}
 */
public record TenantLimits(@Nullable Long requestsPerMinute, @Nullable Long inputTokensPerMinute,
        @Nullable Long outputTokensPerMinute) {

    public TenantLimits {
        ModelLimits.requirePerMinute("requestsPerMinute", requestsPerMinute);
        ModelLimits.requirePerMinute("inputTokensPerMinute", inputTokensPerMinute);
        ModelLimits.requirePerMinute("outputTokensPerMinute", outputTokensPerMinute);
    }

    /**
     * The per-minute limit of one dimension.
     * @param dimension the dimension
     * @return the limit, or {@code null} when unlimited
     */
    public @Nullable Long perMinute(Dimension dimension) {
        return switch (dimension) {
            case REQUESTS -> this.requestsPerMinute;
            case INPUT_TOKENS -> this.inputTokensPerMinute;
            case OUTPUT_TOKENS -> this.outputTokensPerMinute;
            case TOKENS -> null;
        };
    }

    /**
     * These limits with every value that {@code override} sets replacing ours.
     * @param override the tenant's override
     * @return the merged limits
     */
    public TenantLimits overriddenBy(TenantLimits override) {
        return new TenantLimits(pick(override.requestsPerMinute, this.requestsPerMinute),
                pick(override.inputTokensPerMinute, this.inputTokensPerMinute),
                pick(override.outputTokensPerMinute, this.outputTokensPerMinute));
    }

    /**
     * A resolver of tenant limits from a default and per-tenant overrides: a tenant with
     * an override gets the default with the override's values replacing it field by
     * field.
     * @param defaults limits of every tenant, or {@code null} for none
     * @param overrides per-tenant overrides
     * @return a function from tenant to its limits ({@code null} when the tenant has
     * none)
     */
    public static Function<String, @Nullable TenantLimits> resolver(@Nullable TenantLimits defaults,
            Map<String, TenantLimits> overrides) {
        Map<String, TenantLimits> copy = Map.copyOf(overrides);
        return (tenant) -> {
            TenantLimits override = copy.get(tenant);
            if (override == null) {
                return defaults;
            }
            return (defaults != null) ? defaults.overriddenBy(override) : override;
        };
    }

    private static @Nullable Long pick(@Nullable Long preferred, @Nullable Long fallback) {
        return (preferred != null) ? preferred : fallback;
    }

}
