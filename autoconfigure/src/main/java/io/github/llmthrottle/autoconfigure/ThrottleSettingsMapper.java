package io.github.llmthrottle.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Client;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Limits;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Model;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Retry;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.RetryOverrides;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import org.jspecify.annotations.Nullable;

/**
 * Validates {@link LlmThrottleProperties} and maps them, once, into the immutable
 * {@link ThrottleSettings} the core uses. Every problem is reported as an
 * {@link InvalidThrottleConfigurationException} naming the property.
 */
final class ThrottleSettingsMapper {

    private static final String PREFIX = "llm.throttle.";

    private ThrottleSettingsMapper() {
    }

    static ThrottleSettings map(LlmThrottleProperties properties) {
        RetrySettings defaultRetry = retry(properties.getRetry(), new RetryOverrides(), PREFIX + "retry");
        Map<String, ClientSettings> clients = new LinkedHashMap<>();
        properties.getClients().forEach((name, client) -> clients.put(name, client(name, client, defaultRetry)));
        int capacity = properties.getQueue().getCapacity();
        if (capacity <= 0) {
            throw invalid("queue.capacity", capacity, "must be positive", "Set a capacity of at least 1.");
        }
        Duration maxWait = nonNegative("queue.max-wait", properties.getQueue().getMaxWait());
        LlmThrottleProperties.TenantLimits defaults = properties.getTenants().getDefault();
        TenantLimits defaultTenant = tenant("tenants.default", defaults, null);
        Map<String, TenantLimits> overrides = new LinkedHashMap<>();
        properties.getTenants().getOverrides().forEach((tenant, limits) -> {
            TenantLimits mapped = tenant("tenants.overrides." + tenant, limits, defaults);
            if (mapped != null) {
                overrides.put(tenant, mapped);
            }
        });
        return new ThrottleSettings(clients, capacity, maxWait, defaultTenant, overrides,
                circuit(properties.getCircuit()));
    }

    private static CircuitSettings circuit(LlmThrottleProperties.Circuit circuit) {
        if (circuit.getFailureThreshold() < 1) {
            throw invalid("circuit.failure-threshold", circuit.getFailureThreshold(), "must be at least 1",
                    "Use a number of consecutive failures such as 5, or set llm.throttle.circuit.enabled=false.");
        }
        Duration openWait = nonNegative("circuit.open-wait", circuit.getOpenWait());
        if (circuit.getHalfOpenProbes() < 1) {
            throw invalid("circuit.half-open-probes", circuit.getHalfOpenProbes(), "must be at least 1",
                    "Use a small number of probe calls such as 1 to 3.");
        }
        return new CircuitSettings(circuit.isEnabled(), circuit.getFailureThreshold(), openWait,
                circuit.getHalfOpenProbes());
    }

    private static ClientSettings client(String name, Client client, RetrySettings defaultRetry) {
        String prefix = "clients." + name + ".";
        URI baseUrl = baseUrl(prefix + "base-url", client.getProvider(), client.getBaseUrl());
        Duration connectTimeout = positive(prefix + "connect-timeout", client.getConnectTimeout());
        Duration readTimeout = positive(prefix + "read-timeout", client.getReadTimeout());
        Map<String, String> headers = new LinkedHashMap<>();
        if (client.getProvider() == ProviderDialect.ANTHROPIC) {
            headers.put("anthropic-version", "2023-06-01");
        }
        client.getDefaultHeaders().forEach((header, value) -> {
            headers.keySet().removeIf((existing) -> existing.equalsIgnoreCase(header));
            headers.put(header, value);
        });
        ModelLimits defaultLimits = limits(prefix + "default-limits.", client.getDefaultLimits());
        Map<String, ModelSettings> models = new LinkedHashMap<>();
        client.getModels().forEach((model, settings) -> {
            String modelPrefix = prefix + "models." + model + ".";
            models.put(model, new ModelSettings(model, limits(modelPrefix, settings), settings.getFallback()));
        });
        client.getModels().forEach((model, settings) -> checkFallback(prefix, model, settings, models));
        RetrySettings retry = retry(toRetry(defaultRetry), client.getRetry(), PREFIX + prefix + "retry");
        String defaultModel = client.getDefaultModel();
        if (defaultModel != null && defaultModel.isBlank()) {
            throw invalid(prefix + "default-model", defaultModel, "must not be blank",
                    "Name a model, or remove the property.");
        }
        return new ClientSettings(name, client.getProvider(), baseUrl, emptyToNull(client.getApiKey()),
                connectTimeout, readTimeout, headers, defaultModel, defaultLimits, models, retry);
    }

    private static void checkFallback(String prefix, String model, Model settings, Map<String, ModelSettings> models) {
        List<String> fallback = settings.getFallback();
        for (int i = 0; i < fallback.size(); i++) {
            String candidate = fallback.get(i);
            if (!models.containsKey(candidate)) {
                throw invalid(prefix + "models." + model + ".fallback[" + i + "]", candidate,
                        "names a model that is not configured under " + PREFIX + prefix + "models",
                        "Use one of " + models.keySet() + ", or add '" + candidate + "' under " + PREFIX + prefix
                                + "models.");
            }
            if (candidate.equals(model)) {
                throw invalid(prefix + "models." + model + ".fallback[" + i + "]", candidate,
                        "a model cannot fall back to itself", "Name a different model.");
            }
        }
    }

    private static URI baseUrl(String property, ProviderDialect provider, @Nullable String value) {
        if (value == null || value.isBlank()) {
            return switch (provider) {
                case ANTHROPIC -> URI.create("https://api.anthropic.com");
                case OPENAI -> URI.create("https://api.openai.com/v1");
                case GENERIC -> throw invalid(property, null, "is required for a generic provider",
                        "Set the provider's base URL, for example https://llm.example.com/v1.");
            };
        }
        String action = "Use an absolute http or https URL, for example https://api.anthropic.com.";
        try {
            URI uri = new URI(value.trim());
            String scheme = (uri.getScheme() != null) ? uri.getScheme().toLowerCase(Locale.ROOT) : null;
            if (!"http".equals(scheme) && !"https".equals(scheme)) {
                throw invalid(property, value, "is not an http or https URL", action);
            }
            if (uri.getHost() == null || uri.getHost().isEmpty()) {
                throw invalid(property, value, "has no host", action);
            }
            return uri;
        }
        catch (URISyntaxException ex) {
            throw invalid(property, value, "is not a valid URL (" + ex.getReason() + ")", action);
        }
    }

    private static ModelLimits limits(String prefix, Limits limits) {
        return new ModelLimits(positive(prefix + "requests-per-minute", limits.getRequestsPerMinute()),
                positive(prefix + "input-tokens-per-minute", limits.getInputTokensPerMinute()),
                positive(prefix + "output-tokens-per-minute", limits.getOutputTokensPerMinute()),
                positive(prefix + "max-concurrency", limits.getMaxConcurrency()));
    }

    private static @Nullable TenantLimits tenant(String prefix, LlmThrottleProperties.TenantLimits limits,
            LlmThrottleProperties.@Nullable TenantLimits defaults) {
        Long rpm = positive(prefix + ".requests-per-minute", limits.getRequestsPerMinute());
        Long itpm = positive(prefix + ".input-tokens-per-minute", limits.getInputTokensPerMinute());
        Long otpm = positive(prefix + ".output-tokens-per-minute", limits.getOutputTokensPerMinute());
        if (defaults != null) {
            rpm = (rpm != null) ? rpm : defaults.getRequestsPerMinute();
            itpm = (itpm != null) ? itpm : defaults.getInputTokensPerMinute();
            otpm = (otpm != null) ? otpm : defaults.getOutputTokensPerMinute();
        }
        return (rpm == null && itpm == null && otpm == null) ? null : new TenantLimits(rpm, itpm, otpm);
    }

    private static Retry toRetry(RetrySettings settings) {
        Retry retry = new Retry();
        retry.setMaxRetries(settings.maxRetries());
        retry.setDelay(settings.delay());
        retry.setMultiplier(settings.multiplier());
        retry.setMaxDelay(settings.maxDelay());
        retry.setJitter(settings.jitter());
        retry.setRespectRetryAfter(settings.respectRetryAfter());
        retry.setMaxRetryAfter(settings.maxRetryAfter());
        return retry;
    }

    private static RetrySettings retry(Retry base, RetryOverrides overrides, String prefix) {
        String shortPrefix = prefix.substring(PREFIX.length()) + ".";
        int maxRetries = (overrides.getMaxRetries() != null) ? overrides.getMaxRetries() : base.getMaxRetries();
        if (maxRetries < 0) {
            throw invalid(shortPrefix + "max-retries", maxRetries, "must not be negative",
                    "Use 0 to disable retries, or a positive number.");
        }
        Duration delay = positive(shortPrefix + "delay", (overrides.getDelay() != null) ? overrides.getDelay() : base.getDelay());
        double multiplier = (overrides.getMultiplier() != null) ? overrides.getMultiplier() : base.getMultiplier();
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw invalid(shortPrefix + "multiplier", multiplier, "must be at least 1.0",
                    "Use 1.0 for a constant delay, or for example 2.0 to double it with each retry.");
        }
        Duration maxDelay = positive(shortPrefix + "max-delay",
                (overrides.getMaxDelay() != null) ? overrides.getMaxDelay() : base.getMaxDelay());
        if (maxDelay.compareTo(delay) < 0) {
            throw invalid(shortPrefix + "max-delay", maxDelay, "is below " + PREFIX + shortPrefix + "delay (" + delay + ")",
                    "Set max-delay to at least the first delay.");
        }
        Duration maxRetryAfter = nonNegative(shortPrefix + "max-retry-after",
                (overrides.getMaxRetryAfter() != null) ? overrides.getMaxRetryAfter() : base.getMaxRetryAfter());
        return new RetrySettings(maxRetries, delay, multiplier, maxDelay,
                (overrides.getJitter() != null) ? overrides.getJitter() : base.getJitter(),
                (overrides.getRespectRetryAfter() != null) ? overrides.getRespectRetryAfter()
                        : base.isRespectRetryAfter(),
                maxRetryAfter);
    }

    private static <N extends Number> @Nullable N positive(String property, @Nullable N value) {
        if (value != null && value.longValue() <= 0) {
            throw invalid(property, value, "must be positive",
                    "Use a positive number, or remove the property for no local limit.");
        }
        return value;
    }

    private static Duration positive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw invalid(property, value, "must be positive", "Use a positive duration such as 500ms or 10s.");
        }
        return value;
    }

    private static Duration nonNegative(String property, Duration value) {
        if (value.isNegative()) {
            throw invalid(property, value, "must not be negative", "Use a duration such as 0s, 500ms or 30s.");
        }
        return value;
    }

    private static @Nullable String emptyToNull(@Nullable String value) {
        return (value == null || value.isBlank()) ? null : value;
    }

    private static InvalidThrottleConfigurationException invalid(String property, @Nullable Object value, String reason,
            String action) {
        return new InvalidThrottleConfigurationException(PREFIX + property, (value != null) ? String.valueOf(value) : null,
                reason, action);
    }

}
