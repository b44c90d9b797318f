package io.github.llmthrottle;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What the current {@link Throttled} invocation was routed to: client, model, priority,
 * tenant and attempt (0 for the first model, 1 for the first fallback, ...). Calls made
 * on the same thread through the throttled {@code RestClient} (or Spring AI model, SDK or
 * LangChain4j client) of that client are admitted with this priority and tenant: each
 * adapter reads the context once, where the call enters it, and the call carries it from
 * there to whatever thread it runs on. Observers of a call learn its caller (its tenant,
 * a {@code TenantResolver}'s too) from the call, not from this thread-local.
 */
public final class ThrottleContext {

    private static final ThreadLocal<@Nullable ThrottleContext> CURRENT = new ThreadLocal<>();

    private final String client;

    private final String model;

    private final Priority priority;

    private final @Nullable String tenant;

    private final int attempt;

    private final @Nullable Duration maxWait;

    public ThrottleContext(String client, String model, Priority priority, @Nullable String tenant, int attempt,
            @Nullable Duration maxWait) {
        this.client = Objects.requireNonNull(client, "client");
        this.model = Objects.requireNonNull(model, "model");
        this.priority = Objects.requireNonNull(priority, "priority");
        this.tenant = tenant;
        this.attempt = attempt;
        this.maxWait = maxWait;
    }

    /**
     * The context of the invocation running on this thread.
     * @return the context, or {@code null} outside a {@link Throttled} invocation
     */
    public static @Nullable ThrottleContext current() {
        return CURRENT.get();
    }

    /**
     * The model the current invocation was routed to.
     * @return the model, or {@code null} outside a {@link Throttled} invocation
     */
    public static @Nullable String currentModel() {
        ThrottleContext context = CURRENT.get();
        return (context != null) ? context.model : null;
    }

    /**
     * The client the current invocation was routed to: the annotation's client, or the
     * client of a fallback entry {@code CLIENT:MODEL} that named another one.
     * @return the client name, or {@code null} outside a {@link Throttled} invocation
     */
    public static @Nullable String currentClient() {
        ThrottleContext context = CURRENT.get();
        return (context != null) ? context.client : null;
    }

    /**
     * Makes {@code context} current on this thread until the returned scope is closed,
     * when the previous context is restored.
     * @param context the context to make current
     * @return the scope to close
     */
    public static Scope open(ThrottleContext context) {
        ThrottleContext previous = CURRENT.get();
        CURRENT.set(context);
        return () -> {
            if (previous != null) {
                CURRENT.set(previous);
            }
            else {
                CURRENT.remove();
            }
        };
    }

    /**
     * Replaces the context of this thread without a scope, for context propagation
     * libraries that capture and restore thread-locals themselves
     * ({@code ThrottleContextAccessor}).
     * @param context the context, or {@code null} to clear it
     */
    static void set(@Nullable ThrottleContext context) {
        if (context != null) {
            CURRENT.set(context);
        }
        else {
            CURRENT.remove();
        }
    }

    /**
     * The client the invocation was routed to. A fallback entry {@code CLIENT:MODEL} may
     * route it to a model of another client (another provider): call that client's
     * {@code RestClient} (or Spring AI model), whose calls then carry this context's
     * priority, tenant and max-wait; calls through other clients do not.
     * @return the client name
     */
    public String getClient() {
        return this.client;
    }

    public String getModel() {
        return this.model;
    }

    public Priority getPriority() {
        return this.priority;
    }

    public @Nullable String getTenant() {
        return this.tenant;
    }

    public int getAttempt() {
        return this.attempt;
    }

    /**
     * The longest a call of this invocation may wait for admission.
     * @return the wait, or {@code null} for the configured
     * {@code llm.throttle.queue.max-wait}
     */
    public @Nullable Duration getMaxWait() {
        return this.maxWait;
    }

    @Override
    public String toString() {
        return "ThrottleContext[client=" + this.client + ", model=" + this.model + ", priority=" + this.priority
                + ", tenant=" + this.tenant + ", attempt=" + this.attempt + "]";
    }

    /**
     * A context made current by {@link #open(ThrottleContext)}; closing it restores the
     * previous one.
     */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {

        @Override
        void close();

    }

}
