package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ModelLimiter}s of every configured client, keyed by client and model. Listed
 * models get their limiter at construction; any other model called through a configured
 * client gets one on first use, with the client's default limits (or none).
 */
public final class LimiterRegistry {

    private final Map<String, ClientLimits> clients;

    private final int queueCapacity;

    private final Duration maxWait;

    private final Function<String, @Nullable TenantLimits> tenantLimits;

    private final BucketStore store;

    private final TimeSource timeSource;

    private final LimiterOptions options;

    private final Map<String, ConcurrentMap<String, ModelLimiter>> limiters = new LinkedHashMap<>();

    /**
     * Creates the limiters of the listed models of every client.
     * @param clients limits per client name
     * @param queueCapacity queue capacity of each client and model
     * ({@code llm.throttle.queue.capacity})
     * @param maxWait default longest wait for admission
     * ({@code llm.throttle.queue.max-wait})
     * @param tenantLimits the limits of a tenant, {@code null} for none
     * ({@code llm.throttle.tenants})
     * @param store where the buckets live
     * @param timeSource time of the limiters, and how their waiting calls wait
     */
    public LimiterRegistry(Map<String, ClientLimits> clients, int queueCapacity, Duration maxWait,
            Function<String, @Nullable TenantLimits> tenantLimits, BucketStore store, TimeSource timeSource) {
        this(clients, queueCapacity, maxWait, tenantLimits, store, timeSource, LimiterOptions.WITHOUT_SLOW_START);
    }

    /**
     * Creates the limiters of the listed models of every client, with the given
     * concurrency and slow start settings.
     * @param clients limits per client name
     * @param queueCapacity queue capacity of each client and model
     * ({@code llm.throttle.queue.capacity})
     * @param maxWait default longest wait for admission
     * ({@code llm.throttle.queue.max-wait})
     * @param tenantLimits the limits of a tenant, {@code null} for none
     * ({@code llm.throttle.tenants})
     * @param store where the buckets live
     * @param timeSource time of the limiters, and how their waiting calls wait
     * @param options concurrency, slow start and tracked names of every limiter
     * ({@code llm.throttle.concurrency}, {@code llm.throttle.slow-start},
     * {@code llm.throttle.max-tracked-names})
     */
    public LimiterRegistry(Map<String, ClientLimits> clients, int queueCapacity, Duration maxWait,
            Function<String, @Nullable TenantLimits> tenantLimits, BucketStore store, TimeSource timeSource,
            LimiterOptions options) {
        this.options = options;
        this.clients = Map.copyOf(clients);
        this.queueCapacity = queueCapacity;
        this.maxWait = maxWait;
        this.tenantLimits = tenantLimits;
        this.store = store;
        this.timeSource = timeSource;
        clients.forEach((client, limits) -> {
            ConcurrentMap<String, ModelLimiter> models = new ConcurrentHashMap<>();
            limits.models().forEach((model, modelLimits) -> models.put(model, create(client, model, modelLimits)));
            this.limiters.put(client, models);
        });
    }

    /**
     * The settings every limiter shares beyond its own limits.
     * @return the options
     */
    public LimiterOptions options() {
        return this.options;
    }

    /**
     * The limiter of a model, created with the client's default limits if the model is
     * not listed.
     * @param client a configured client name
     * @param model any model name
     * @return its limiter
     * @throws IllegalArgumentException if the client is not configured
     */
    public ModelLimiter limiter(String client, String model) {
        ConcurrentMap<String, ModelLimiter> models = this.limiters.get(client);
        ClientLimits limits = this.clients.get(client);
        if (models == null || limits == null) {
            throw new IllegalArgumentException(
                    "No client '" + client + "' is configured (known: " + this.limiters.keySet() + ")");
        }
        return models.computeIfAbsent(model, (name) -> {
            ModelLimits defaults = limits.defaultLimits();
            return create(client, name, (defaults != null) ? defaults : ModelLimits.UNLIMITED);
        });
    }

    /**
     * Forgets the limiter of a model that is not configured, and its buckets in this
     * instance; the next call for it starts afresh.
     * @param client the client name
     * @param model the model name
     */
    public void forget(String client, String model) {
        ConcurrentMap<String, ModelLimiter> models = this.limiters.get(client);
        ClientLimits limits = this.clients.get(client);
        if (models == null || limits == null || limits.models().containsKey(model)) {
            return;
        }
        ModelLimiter limiter = models.remove(model);
        if (limiter != null) {
            limiter.forgetBuckets();
        }
    }

    /**
     * The limiter of a model if it exists already, without creating one.
     * @param client the client name
     * @param model the model name
     * @return its limiter, or {@code null}
     */
    public @Nullable ModelLimiter find(String client, String model) {
        ConcurrentMap<String, ModelLimiter> models = this.limiters.get(client);
        return (models != null) ? models.get(model) : null;
    }

    /**
     * The state of every limiter that exists, per client and model, for the actuator.
     * @return state per client, then per model
     */
    public Map<String, Map<String, LimiterState>> states() {
        Map<String, Map<String, LimiterState>> states = new LinkedHashMap<>();
        this.limiters.forEach((client, models) -> {
            Map<String, LimiterState> byModel = new LinkedHashMap<>();
            models.forEach((model, limiter) -> byModel.put(model, limiter.state()));
            states.put(client, byModel);
        });
        return states;
    }

    private ModelLimiter create(String client, String model, ModelLimits limits) {
        return new ModelLimiter(client, model, limits, this.queueCapacity, this.maxWait, this.tenantLimits, this.store,
                this.timeSource, this.options);
    }

}
