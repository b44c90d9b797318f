package io.github.llmthrottle.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.retry.RetrySettings;
import org.jspecify.annotations.Nullable;

/**
 * The validated, immutable settings of one configured client.
 *
 * @param name the client name
 * @param provider the wire dialect
 * @param baseUrl the provider's base URL
 * @param apiKey the API key, or {@code null}; never printed
 * @param connectTimeout connect timeout
 * @param readTimeout read timeout
 * @param defaultHeaders headers sent with every request
 * @param defaultModel model used when a request names none, or {@code null}
 * @param defaultLimits limits of models without their own entry
 * @param models settings per configured model
 * @param retry the retry settings
 */
public record ClientSettings(String name, ProviderDialect provider, URI baseUrl, @Nullable String apiKey,
        Duration connectTimeout, Duration readTimeout, Map<String, String> defaultHeaders,
        @Nullable String defaultModel, ModelLimits defaultLimits, Map<String, ModelSettings> models,
        RetrySettings retry) {

    public ClientSettings {
        defaultHeaders = Map.copyOf(defaultHeaders);
        models = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(models));
    }

    /**
     * The limits of {@code model}: its own entry, or the client's default limits.
     * @param model the model name
     * @return the limits
     */
    public ModelLimits limitsOf(String model) {
        ModelSettings settings = this.models.get(model);
        return (settings != null) ? settings.limits() : this.defaultLimits;
    }

    /**
     * The configured fallback chain of {@code model}.
     * @param model the model name
     * @return the fallback models, in order (empty when none)
     */
    public List<String> fallbackOf(String model) {
        ModelSettings settings = this.models.get(model);
        return (settings != null) ? settings.fallback() : List.of();
    }

    @Override
    public String toString() {
        return "ClientSettings[name=" + this.name + ", provider=" + this.provider + ", baseUrl=" + this.baseUrl
                + ", apiKey=" + ((this.apiKey != null) ? "******" : "none") + ", defaultModel=" + this.defaultModel
                + ", models=" + this.models.keySet() + "]";
    }

    /**
     * Settings of one configured model.
     *
     * @param name the model name
     * @param limits its limits
     * @param fallback models to fall back to, in order
     */
    public record ModelSettings(String name, ModelLimits limits, List<String> fallback) {

        public ModelSettings {
            fallback = List.copyOf(fallback);
        }

    }

}
