package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.Objects;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import org.jspecify.annotations.Nullable;

/**
 * What the caller of one request asks of its client: the priority and tenant it is
 * admitted with, the longest it may wait for admission, and the model it is counted
 * against when its body names none. An adapter works it out once, where the caller's
 * request enters it (a {@code @Throttled} invocation's {@link ThrottleContext}, advisor
 * parameters, carrier headers), and hands it in with the {@link ProviderRequest}: the
 * call pipeline reads no thread-local, so a request sent on another thread than its
 * caller's still carries its caller.
 *
 * @param priority the priority of the call
 * @param tenant the tenant of the call, or {@code null} for the {@link TenantResolver}'s
 * @param maxWait the longest the call may wait for admission, or {@code null} for the
 * configured {@code llm.throttle.queue.max-wait}
 * @param model the model the call is counted against when its body names none, or
 * {@code null} for the client's default model
 */
public record Caller(Priority priority, @Nullable String tenant, @Nullable Duration maxWait, @Nullable String model) {

    /**
     * A caller that asks for nothing: normal priority, the {@link TenantResolver}'s
     * tenant, the configured max-wait, the client's default model.
     */
    public static final Caller DEFAULT = new Caller(Priority.NORMAL, null, null, null);

    public Caller {
        Objects.requireNonNull(priority, "priority");
        if (maxWait != null && maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
        }
    }

    /**
     * The caller a {@code @Throttled} invocation's context stands for, in a request of
     * the client named {@code client}: a context of another client (a fallback to another
     * provider) does not apply to it.
     * @param context the invocation's context, or {@code null} outside one
     * @param client the client the request goes through
     * @return the context's priority, tenant, max-wait and model, or {@link #DEFAULT}
     * when it does not apply
     */
    public static Caller of(@Nullable ThrottleContext context, String client) {
        if (context == null || !context.getClient().equals(client)) {
            return DEFAULT;
        }
        return new Caller(context.getPriority(), context.getTenant(), context.getMaxWait(), context.getModel());
    }

    /**
     * This caller with {@code tenant} as its tenant.
     * @param tenant the tenant, or {@code null} for none
     * @return the caller
     */
    public Caller withTenant(@Nullable String tenant) {
        return Objects.equals(tenant, this.tenant) ? this : new Caller(this.priority, tenant, this.maxWait, this.model);
    }

}
