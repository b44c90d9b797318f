package io.github.llmthrottle.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The OpenTelemetry semantic conventions' GenAI client metrics of every throttled call:
 * <ul>
 * <li>{@code gen_ai.client.token.usage}: a distribution summary of the tokens of each
 * call, {@code gen_ai.token.type} {@code input} or {@code output}, with the conventions'
 * bucket boundaries (1, 4, 16, ... 67108864) and no base unit (Prometheus:
 * {@code gen_ai_client_token_usage_bucket}, as OpenTelemetry's own exporter names it);
 * <li>{@code gen_ai.client.operation.duration}: a timer of each call from its start to
 * its end (for a stream, its last chunk), queueing and retries included, with the
 * conventions' boundaries (0.01 s, 0.02 s, ... 81.92 s), and {@code error.type};
 * <li>{@code gen_ai.client.operation.time_to_first_chunk}: a timer of the time from a
 * streamed call's start to its first chunk, with the same boundaries.
 * </ul>
 * All carry {@code gen_ai.operation.name} ({@code chat}), {@code gen_ai.provider.name}
 * (the client's dialect: {@code anthropic}, {@code openai}, or {@code _OTHER} for an
 * Ollama or a generic one, which the conventions do not name) and
 * {@code gen_ai.request.model}. Every meter of a name has the same tag keys, as
 * Prometheus requires: {@code error.type} is the empty string when the call succeeded,
 * which Prometheus reads as no label at all, exactly as the conventions want it.
 * Configured models get their meters at startup.
 * <p>
 * Spring AI's chat model observations publish a {@code gen_ai.client.token.usage} of
 * their own (a counter with other tags); both cannot live under one name in Prometheus,
 * and a {@code ChatClient} call would be counted twice. Built without token usage
 * ({@code tokenUsage} false), these metrics leave that name to Spring AI.
 */
public final class GenAiClientMetrics implements ThrottleObserver {

    static final String TOKEN_USAGE = "gen_ai.client.token.usage";

    static final String OPERATION_DURATION = "gen_ai.client.operation.duration";

    static final String TIME_TO_FIRST_CHUNK = "gen_ai.client.operation.time_to_first_chunk";

    static final String OPERATION_NAME = "gen_ai.operation.name";

    static final String PROVIDER_NAME = "gen_ai.provider.name";

    static final String REQUEST_MODEL = "gen_ai.request.model";

    static final String TOKEN_TYPE = "gen_ai.token.type";

    static final String ERROR_TYPE = "error.type";

    /** Every throttled call is a chat completion ({@code /v1/messages}, ...). */
    static final String CHAT = "chat";

    /** The semantic conventions' explicit bucket boundaries for token counts. */
    static final double[] TOKEN_BUCKETS = { 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
            16777216, 67108864 };

    /** The semantic conventions' explicit bucket boundaries for durations, in seconds. */
    static final Duration[] DURATION_BUCKETS = { Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40),
            Duration.ofMillis(80), Duration.ofMillis(160), Duration.ofMillis(320), Duration.ofMillis(640),
            Duration.ofMillis(1280), Duration.ofMillis(2560), Duration.ofMillis(5120), Duration.ofMillis(10240),
            Duration.ofMillis(20480), Duration.ofMillis(40960), Duration.ofMillis(81920) };

    private static final String NO_ERROR = "";

    private final MeterRegistry registry;

    private final boolean tokenUsage;

    /** The {@code gen_ai.provider.name} of each client. */
    private final Map<String, String> providers = new ConcurrentHashMap<>();

    private final Map<MeterKey, Meter> meters = new ConcurrentHashMap<>();

    /**
     * Creates the metrics and registers the meters of every configured client and model.
     * @param registry where meters go
     * @param settings the configured clients and models
     * @param tokenUsage whether to publish {@code gen_ai.client.token.usage} (not when
     * Spring AI publishes its own)
     */
    public GenAiClientMetrics(MeterRegistry registry, ThrottleSettings settings, boolean tokenUsage) {
        this.registry = registry;
        this.tokenUsage = tokenUsage;
        for (ClientSettings client : settings.clients().values()) {
            String provider = providerName(client.provider());
            this.providers.put(client.name(), provider);
            for (String model : client.models().keySet()) {
                if (tokenUsage) {
                    tokens(provider, model, "input");
                    tokens(provider, model, "output");
                }
                duration(provider, model, NO_ERROR);
                timeToFirstChunk(provider, model);
            }
        }
    }

    /**
     * The {@code gen_ai.provider.name} of a dialect.
     * @param dialect the client's dialect
     * @return {@code anthropic}, {@code openai}, or {@code _OTHER}
     */
    static String providerName(ProviderDialect dialect) {
        return switch (dialect) {
            case ANTHROPIC, OPENAI -> dialect.name().toLowerCase(Locale.ROOT);
            default -> "_OTHER";
        };
    }

    /**
     * Whether {@code gen_ai.client.token.usage} is published.
     * @return {@code false} when it is left to Spring AI
     */
    public boolean isTokenUsagePublished() {
        return this.tokenUsage;
    }

    @Override
    public void onUsage(String client, String model, Usage usage) {
        if (this.tokenUsage) {
            String provider = provider(client);
            tokens(provider, model, "input").record(usage.inputTokens());
            tokens(provider, model, "output").record(usage.outputTokens());
        }
    }

    @Override
    public void onCallCompleted(String client, String model, Duration duration, @Nullable String errorType) {
        duration(provider(client), model, (errorType != null) ? errorType : NO_ERROR).record(duration);
    }

    @Override
    public void onFirstChunk(String client, String model, Duration sinceCallStart) {
        timeToFirstChunk(provider(client), model).record(sinceCallStart);
    }

    /**
     * Drops the meters of a model that is no longer tracked. Another client of the same
     * provider that still calls the model gets them back on its next call (Prometheus
     * reads that as a counter reset).
     */
    @Override
    public void onModelForgotten(String client, String model) {
        String provider = provider(client);
        this.meters.keySet().removeIf((key) -> key.provider().equals(provider) && key.model().equals(model));
        for (Meter meter : this.registry.getMeters()) {
            Meter.Id id = meter.getId();
            if (id.getName().startsWith("gen_ai.client.") && provider.equals(id.getTag(PROVIDER_NAME))
                    && model.equals(id.getTag(REQUEST_MODEL))) {
                this.registry.remove(meter);
            }
        }
    }

    private String provider(String client) {
        String provider = this.providers.get(client);
        return (provider != null) ? provider : "_OTHER";
    }

    private DistributionSummary tokens(String provider, String model, String type) {
        return (DistributionSummary) this.meters.computeIfAbsent(new MeterKey(TOKEN_USAGE, provider, model, type),
                (key) -> DistributionSummary.builder(TOKEN_USAGE)
                    .description("Number of input and output tokens used")
                    .tags(tags(provider, model).and(TOKEN_TYPE, type))
                    .serviceLevelObjectives(TOKEN_BUCKETS)
                    .register(this.registry));
    }

    private Timer duration(String provider, String model, String errorType) {
        return (Timer) this.meters.computeIfAbsent(new MeterKey(OPERATION_DURATION, provider, model, errorType),
                (key) -> Timer.builder(OPERATION_DURATION)
                    .description("GenAI operation duration")
                    .tags(tags(provider, model).and(ERROR_TYPE, errorType))
                    .serviceLevelObjectives(DURATION_BUCKETS)
                    .register(this.registry));
    }

    private Timer timeToFirstChunk(String provider, String model) {
        return (Timer) this.meters.computeIfAbsent(new MeterKey(TIME_TO_FIRST_CHUNK, provider, model, ""),
                (key) -> Timer.builder(TIME_TO_FIRST_CHUNK)
                    .description("Time to receive the first chunk in a streaming operation")
                    .tags(tags(provider, model))
                    .serviceLevelObjectives(DURATION_BUCKETS)
                    .register(this.registry));
    }

    private static Tags tags(String provider, String model) {
        return Tags.of(OPERATION_NAME, CHAT, PROVIDER_NAME, provider, REQUEST_MODEL, model);
    }

    private record MeterKey(String name, String provider, String model, String extra) {
    }

}
