package io.github.llmthrottle.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Classification;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The Micrometer metrics of every throttled client and model, all tagged {@code client}
 * and {@code model}: timers {@code llm.requests} (per HTTP attempt), {@code llm.calls}
 * (per logical call), {@code llm.queue.wait} (with percentiles) and
 * {@code llm.queue.wait.slo} (the same waits as a histogram of SLO buckets); counters
 * {@code llm.retries}, {@code llm.tokens}, {@code llm.fallbacks}, {@code llm.rejections};
 * the summary {@code llm.retry.after}; and gauges {@code llm.queue.size},
 * {@code llm.inflight}, {@code llm.concurrency.limit} and {@code llm.ratelimit.remaining}
 * read from each model's limiter, and {@code llm.circuit.state} (1 for the model's
 * current {@code state}, 0 for the others) read from its circuit.
 *
 * <p>
 * An observer: events become meters, each registered once and cached, so nothing is
 * looked up twice and no meter is removed and added again. Configured models get their
 * gauges and their bounded counters at startup (so rates start from zero); models first
 * seen later get their gauges on their first event. A {@code tenant} tag (the tenant of
 * the call's caller, as {@link #forCall} is told it, {@code none} otherwise) is added to
 * event meters only when {@link ThrottleMetricsOptions#tenantTag()} is on, for at most
 * {@code llm.throttle.max-tracked-names} tenants per client at once: the series of the
 * least recently used one are removed to make room.
 */
public final class ThrottleMetrics implements ThrottleObserver {

    static final String REQUESTS = "llm.requests";

    static final String CALLS = "llm.calls";

    static final String RETRIES = "llm.retries";

    static final String RETRY_AFTER = "llm.retry.after";

    static final String QUEUE_WAIT = "llm.queue.wait";

    static final String QUEUE_WAIT_SLO = "llm.queue.wait.slo";

    static final String QUEUE_SIZE = "llm.queue.size";

    static final String INFLIGHT = "llm.inflight";

    static final String CONCURRENCY_LIMIT = "llm.concurrency.limit";

    static final String TOKENS = "llm.tokens";

    static final String REMAINING = "llm.ratelimit.remaining";

    static final String FALLBACKS = "llm.fallbacks";

    static final String REJECTIONS = "llm.rejections";

    static final String CIRCUIT_STATE = "llm.circuit.state";

    private static final String NONE = "none";

    private static final List<String> RETRY_REASONS = List.of("429", "529", "503", "5xx", "io");

    private final MeterRegistry registry;

    private final ThrottleMetricsOptions options;

    private final double[] percentiles;

    private final Duration[] slos;

    private final Map<MeterKey, Meter> meters;

    private final ModelGauges gauges;

    private final TrackedTenants tenants;

    /** The tenant of the call this is the view of ({@link #forCall}), or {@code null}. */
    private final @Nullable String tenant;

    /**
     * Creates the metrics and registers the meters of every configured client and model,
     * without {@code llm.circuit.state}.
     * @param registry where meters go
     * @param settings the configured clients and models
     * @param limiters the limiters the gauges read
     * @param options tags and distribution settings
     */
    public ThrottleMetrics(MeterRegistry registry, ThrottleSettings settings, LimiterRegistry limiters,
            ThrottleMetricsOptions options) {
        this(registry, settings, limiters, options, null);
    }

    /**
     * Creates the metrics and registers the meters of every configured client and model.
     * @param registry where meters go
     * @param settings the configured clients and models
     * @param limiters the limiters the gauges read
     * @param options tags and distribution settings
     * @param clients the clients whose circuits {@code llm.circuit.state} reads, looked
     * up when the gauge is read (the registry is built after its observers), or
     * {@code null} for no such gauge
     */
    public ThrottleMetrics(MeterRegistry registry, ThrottleSettings settings, LimiterRegistry limiters,
            ThrottleMetricsOptions options, @Nullable Supplier<@Nullable LlmThrottleRegistry> clients) {
        this.registry = registry;
        this.options = options;
        this.tenants = new TrackedTenants(settings.limiter().maxTrackedNames());
        this.percentiles = options.queueWaitPercentiles().stream().mapToDouble(Double::doubleValue).toArray();
        this.slos = options.queueWaitSlos().toArray(Duration[]::new);
        this.meters = new ConcurrentHashMap<>();
        this.gauges = new ModelGauges(registry, limiters, clients);
        this.tenant = null;
        settings.clients().values().forEach(this::registerConfigured);
    }

    /** The view of {@code metrics} for the calls of {@code tenant}: the same meters. */
    private ThrottleMetrics(ThrottleMetrics metrics, String tenant) {
        this.registry = metrics.registry;
        this.options = metrics.options;
        this.tenants = metrics.tenants;
        this.percentiles = metrics.percentiles;
        this.slos = metrics.slos;
        this.meters = metrics.meters;
        this.gauges = metrics.gauges;
        this.tenant = tenant;
    }

    /**
     * The metrics of a call of a tenant, tagged with it when the {@code tenant} tag is
     * on; these metrics otherwise.
     */
    @Override
    public ThrottleObserver forCall(Caller caller) {
        String tenant = caller.tenant();
        return (this.options.tenantTag() && tenant != null && !tenant.equals(this.tenant))
                ? new ThrottleMetrics(this, tenant) : this;
    }

    private void registerConfigured(ClientSettings client) {
        client.models().forEach((model, settings) -> {
            this.gauges.register(client.name(), model);
            if (!this.options.tenantTag()) {
                for (ThrottleObserver.CallOutcome outcome : ThrottleObserver.CallOutcome.values()) {
                    callTimer(client.name(), model, outcome.tag(), null);
                }
                // so that a rate of 429s (a ratio, an alert) sees the first one too
                requestTimer(client.name(), model, Classification.Outcome.RATE_LIMITED.metricTag(), "429", null);
                for (Priority priority : Priority.values()) {
                    queueWait(client.name(), model, priority, null);
                    if (this.slos.length > 0) {
                        queueWaitSlo(client.name(), model, priority, null);
                    }
                }
                for (String reason : RETRY_REASONS) {
                    counter(RETRIES, client.name(), model, "reason", reason, null);
                }
                for (RejectionReason rejection : RejectionReason.values()) {
                    counter(REJECTIONS, client.name(), model, "reason", rejection.tag(), null);
                }
                counter(TOKENS, client.name(), model, "type", "input", null);
                counter(TOKENS, client.name(), model, "type", "output", null);
                counter(TOKENS, client.name(), model, "type", "cache_read", null);
                counter(TOKENS, client.name(), model, "type", "cache_write", null);
                retryAfter(client.name(), model, null);
                settings.fallback().forEach((to) -> fallbacks(client.name(), model, to));
            }
        });
    }

    @Override
    public void onAdmitted(String client, String model, Priority priority, Duration waited) {
        this.gauges.register(client, model);
        String tenant = tenant(client);
        queueWait(client, model, priority, tenant).record(waited);
        if (this.slos.length > 0) {
            queueWaitSlo(client, model, priority, tenant).record(waited);
        }
    }

    @Override
    public void onAttempt(String client, String model, Classification.Outcome outcome, int status, Duration duration) {
        this.gauges.register(client, model);
        String statusTag = (status > 0) ? Integer.toString(status) : NONE;
        requestTimer(client, model, outcome.metricTag(), statusTag, tenant(client)).record(duration);
    }

    private Timer requestTimer(String client, String model, String outcome, String status, @Nullable String tenant) {
        return (Timer) this.meters.computeIfAbsent(new MeterKey(REQUESTS, client, model, outcome, status, tenant),
                (key) -> Timer.builder(REQUESTS)
                    .description("HTTP attempts to the provider, retries included")
                    .tags(tags(client, model, tenant, "outcome", outcome, "status", status))
                    .register(this.registry));
    }

    @Override
    public void onRetry(String client, String model, Classification classification, Duration wait, int retryCount) {
        this.gauges.register(client, model);
        counter(RETRIES, client, model, "reason", classification.reason(), tenant(client)).increment();
    }

    @Override
    public void onServerWait(String client, String model, Duration wait) {
        retryAfter(client, model, tenant(client)).record(wait.toNanos() / (double) TimeUnit.SECONDS.toNanos(1));
    }

    @Override
    public void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
        this.gauges.register(client, model);
        counter(REJECTIONS, client, model, "reason", rejection.tag(), tenant(client)).increment();
    }

    @Override
    public void onUsage(String client, String model, Usage usage) {
        String tenant = tenant(client);
        counter(TOKENS, client, model, "type", "input", tenant).increment(usage.inputTokens());
        counter(TOKENS, client, model, "type", "output", tenant).increment(usage.outputTokens());
        counter(TOKENS, client, model, "type", "cache_read", tenant).increment(usage.cacheReadTokens());
        counter(TOKENS, client, model, "type", "cache_write", tenant).increment(usage.cacheWriteTokens());
    }

    @Override
    public void onCall(String client, String model, CallOutcome outcome, Duration duration) {
        this.gauges.register(client, model);
        callTimer(client, model, outcome.tag(), tenant(client)).record(duration);
    }

    @Override
    public void onFallback(String client, String from, String to, Throwable cause) {
        fallbacks(client, from, to).increment();
    }

    private Timer callTimer(String client, String model, String outcome, @Nullable String tenant) {
        return (Timer) this.meters.computeIfAbsent(new MeterKey(CALLS, client, model, outcome, "", tenant),
                (key) -> Timer.builder(CALLS)
                    .description("Logical calls, admission and retries included")
                    .tags(tags(client, model, tenant, "outcome", outcome))
                    .register(this.registry));
    }

    private Timer queueWait(String client, String model, Priority priority, @Nullable String tenant) {
        String tag = priority.name().toLowerCase(Locale.ROOT);
        return (Timer) this.meters.computeIfAbsent(new MeterKey(QUEUE_WAIT, client, model, tag, "", tenant),
                (key) -> Timer.builder(QUEUE_WAIT)
                    .description("Time calls waited for admission (local limits, pause, concurrency)")
                    .tags(tags(client, model, tenant, "priority", tag))
                    .publishPercentiles(this.percentiles)
                    .register(this.registry));
    }

    // A separate timer for the SLO buckets: Prometheus drops a timer's percentiles once
    // it has histogram buckets, and llm.queue.wait must publish its percentiles
    // everywhere.
    private Timer queueWaitSlo(String client, String model, Priority priority, @Nullable String tenant) {
        String tag = priority.name().toLowerCase(Locale.ROOT);
        return (Timer) this.meters.computeIfAbsent(new MeterKey(QUEUE_WAIT_SLO, client, model, tag, "", tenant),
                (key) -> Timer.builder(QUEUE_WAIT_SLO)
                    .description("Time calls waited for admission, as a histogram of the SLO boundaries")
                    .tags(tags(client, model, tenant, "priority", tag))
                    .serviceLevelObjectives(this.slos)
                    .register(this.registry));
    }

    private DistributionSummary retryAfter(String client, String model, @Nullable String tenant) {
        return (DistributionSummary) this.meters.computeIfAbsent(
                new MeterKey(RETRY_AFTER, client, model, "", "", tenant),
                (key) -> DistributionSummary.builder(RETRY_AFTER)
                    .description("Seconds the provider asked to wait before a retry")
                    .baseUnit("seconds")
                    .tags(tags(client, model, tenant))
                    .register(this.registry));
    }

    private Counter fallbacks(String client, String from, String to) {
        return (Counter) this.meters.computeIfAbsent(new MeterKey(FALLBACKS, client, from, from, to, null),
                (key) -> Counter.builder(FALLBACKS)
                    .description("Calls routed from one model to the next")
                    .tags(tags(client, from, null, "from", from, "to", to))
                    .register(this.registry));
    }

    private Counter counter(String name, String client, String model, String tagKey, String tagValue,
            @Nullable String tenant) {
        return (Counter) this.meters.computeIfAbsent(new MeterKey(name, client, model, tagValue, "", tenant),
                (key) -> Counter.builder(name)
                    .description(description(name))
                    .baseUnit(TOKENS.equals(name) ? "tokens" : null)
                    .tags(tags(client, model, tenant, tagKey, tagValue))
                    .register(this.registry));
    }

    private static String description(String name) {
        return switch (name) {
            case RETRIES -> "Retries, by the reason of the failed attempt";
            case REJECTIONS -> "Calls refused without (another) attempt";
            case TOKENS -> "Tokens the provider counted";
            default -> name;
        };
    }

    private Tags tags(String client, String model, @Nullable String tenant, String... extra) {
        List<Tag> tags = new ArrayList<>(3 + extra.length / 2);
        tags.add(Tag.of("client", client));
        tags.add(Tag.of("model", model));
        for (int i = 0; i < extra.length; i += 2) {
            tags.add(Tag.of(extra[i], extra[i + 1]));
        }
        if (this.options.tenantTag()) {
            tags.add(Tag.of("tenant", (tenant != null) ? tenant : NONE));
        }
        return Tags.of(tags);
    }

    @Override
    public void onModelForgotten(String client, String model) {
        this.gauges.forget(client, model);
        this.meters.keySet().removeIf((key) -> key.client().equals(client) && key.model().equals(model));
        for (Meter meter : this.registry.getMeters()) {
            Meter.Id id = meter.getId();
            if (id.getName().startsWith("llm.") && client.equals(id.getTag("client"))
                    && model.equals(id.getTag("model"))) {
                this.registry.remove(meter);
            }
        }
    }

    private @Nullable String tenant(String client) {
        if (!this.options.tenantTag()) {
            return null;
        }
        if (this.tenant == null) {
            return NONE;
        }
        String forgotten = this.tenants.use(client, this.tenant);
        if (forgotten != null) {
            forgetTenant(client, forgotten);
        }
        return this.tenant;
    }

    /** Removes the series of a tenant no longer tracked. */
    private void forgetTenant(String client, String tenant) {
        this.meters.entrySet().removeIf((entry) -> {
            boolean forgotten = entry.getKey().client().equals(client) && tenant.equals(entry.getKey().tenant());
            if (forgotten) {
                this.registry.remove(entry.getValue());
            }
            return forgotten;
        });
    }

    private record MeterKey(String name, String client, String model, String first, String second,
            @Nullable String tenant) {
    }

}
