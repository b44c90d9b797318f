package io.github.llmthrottle.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.routing.CircuitState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;

/**
 * The gauges of {@link ThrottleMetrics}, once per model: {@code llm.queue.size},
 * {@code llm.inflight}, {@code llm.concurrency.limit} and {@code llm.ratelimit.remaining}
 * read from its limiter, and {@code llm.circuit.state} read from its circuit.
 */
final class ModelGauges {

    private final MeterRegistry registry;

    private final LimiterRegistry limiters;

    private final @Nullable Supplier<@Nullable LlmThrottleRegistry> clients;

    private final Map<String, Set<String>> gauged = new ConcurrentHashMap<>();

    ModelGauges(MeterRegistry registry, LimiterRegistry limiters,
            @Nullable Supplier<@Nullable LlmThrottleRegistry> clients) {
        this.registry = registry;
        this.limiters = limiters;
        this.clients = clients;
    }

    /** A forgotten model gets its gauges again when it is seen again. */
    void forget(String client, String model) {
        Set<String> gauged = this.gauged.get(client);
        if (gauged != null) {
            gauged.remove(model);
        }
    }

    void register(String client, String model) {
        Set<String> models = this.gauged.computeIfAbsent(client, (name) -> ConcurrentHashMap.newKeySet());
        if (models.contains(model)) {
            return;
        }
        ModelLimiter limiter = this.limiters.find(client, model);
        if (limiter == null || !models.add(model)) {
            return;
        }
        Tags tags = Tags.of("client", client, "model", model);
        for (Priority priority : Priority.values()) {
            gauge(ThrottleMetrics.QUEUE_SIZE, "Calls waiting for admission",
                    tags.and("priority", priority.name().toLowerCase(Locale.ROOT)), limiter,
                    (state) -> queued(state.queued(), priority));
        }
        gauge(ThrottleMetrics.INFLIGHT, "Attempts admitted and not yet finished", tags, limiter,
                LimiterState::inFlight);
        gauge(ThrottleMetrics.CONCURRENCY_LIMIT, "The adaptive concurrency limit", tags, limiter,
                (state) -> orNaN(state.concurrencyLimit()));
        remaining(tags, limiter, "requests", (state) -> state.available().requests(),
                RateLimitSnapshot::requestsRemaining);
        remaining(tags, limiter, "input_tokens", (state) -> state.available().inputTokens(),
                RateLimitSnapshot::inputTokensRemaining);
        remaining(tags, limiter, "output_tokens", (state) -> state.available().outputTokens(),
                RateLimitSnapshot::outputTokensRemaining);
        remaining(tags, limiter, "tokens", (state) -> state.available().tokens(), RateLimitSnapshot::tokensRemaining);
        for (CircuitState state : (this.clients != null) ? CircuitState.values() : new CircuitState[0]) {
            Gauge.builder(ThrottleMetrics.CIRCUIT_STATE, () -> circuitIs(client, model, state))
                .description("1 for the circuit's current state, 0 for the others")
                .tags(tags.and("state", state.name().toLowerCase(Locale.ROOT)))
                .strongReference(true)
                .register(this.registry);
        }
    }

    private double circuitIs(String client, String model, CircuitState state) {
        LlmThrottleRegistry clients = (this.clients != null) ? this.clients.get() : null;
        ThrottledClient throttled = (clients != null) ? clients.getClient(client) : null;
        ThrottledClient.ThrottledModel tracked = (throttled != null) ? throttled.findModel(model) : null;
        if (tracked == null) {
            return Double.NaN;
        }
        return (tracked.getCircuit().state() == state) ? 1 : 0;
    }

    private void remaining(Tags tags, ModelLimiter limiter, String resource,
            Function<LimiterState, @Nullable Long> local, Function<RateLimitSnapshot, @Nullable Long> server) {
        Tags resourceTags = tags.and("resource", resource);
        String description = "What is left of a rate limit: in the local bucket, or as the provider last reported";
        gauge(ThrottleMetrics.REMAINING, description, resourceTags.and("source", "local"), limiter,
                (state) -> orNaN(local.apply(state)));
        gauge(ThrottleMetrics.REMAINING, description, resourceTags.and("source", "server"), limiter,
                (state) -> (state.server() != null) ? orNaN(server.apply(state.server())) : Double.NaN);
    }

    private void gauge(String name, String description, Tags tags, ModelLimiter limiter,
            ToDoubleFunction<LimiterState> value) {
        Gauge.builder(name, limiter, (target) -> value.applyAsDouble(target.state()))
            .description(description)
            .tags(tags)
            .strongReference(true)
            .register(this.registry);
    }

    private static double queued(LimiterState.Queued queued, Priority priority) {
        return switch (priority) {
            case REALTIME -> queued.realtime();
            case NORMAL -> queued.normal();
            case BATCH -> queued.batch();
        };
    }

    private static double orNaN(@Nullable Number value) {
        return (value != null) ? value.doubleValue() : Double.NaN;
    }

}
