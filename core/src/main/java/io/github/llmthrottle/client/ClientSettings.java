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
 * @param countTokens whether and when the provider is asked to count a request's input
 * tokens instead of estimating them
 */
public record ClientSettings(String name, ProviderDialect provider, URI baseUrl, @Nullable String apiKey,
        Duration connectTimeout, Duration readTimeout, Map<String, String> defaultHeaders,
        @Nullable String defaultModel, ModelLimits defaultLimits, Map<String, ModelSettings> models,
        RetrySettings retry, CountTokensSettings countTokens) {

    public ClientSettings {
        defaultHeaders = Map.copyOf(defaultHeaders);
        models = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(models));
    }

    /**
     * Settings whose input tokens are estimated, never counted by the provider.
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
    public ClientSettings(String name, ProviderDialect provider, URI baseUrl, @Nullable String apiKey,
            Duration connectTimeout, Duration readTimeout, Map<String, String> defaultHeaders,
            @Nullable String defaultModel, ModelLimits defaultLimits, Map<String, ModelSettings> models,
            RetrySettings retry) {
        this(name, provider, baseUrl, apiKey, connectTimeout, readTimeout, defaultHeaders, defaultModel, defaultLimits,
                models, retry, CountTokensSettings.OFF);
    }

    /**
     * The settings of a client that configures nothing but its dialect and base URL: no
     * API key, 10s to connect, 10m to read, the dialect's default headers, no default
     * model, no limits and the default retry settings.
     * @param name the client name
     * @param provider the wire dialect
     * @param baseUrl the provider's base URL
     * @return the settings
     */
    public static ClientSettings defaults(String name, ProviderDialect provider, URI baseUrl) {
        return new ClientSettings(name, provider, baseUrl, null, Duration.ofSeconds(10), Duration.ofMinutes(10),
                provider.defaultHeaders(), null, ModelLimits.UNLIMITED, Map.of(), RetrySettings.DEFAULTS);
    }

    /**
     * A copy with another API key.
     * @param apiKey the API key, or {@code null} for none
     * @return the new settings
     */
    public ClientSettings withApiKey(@Nullable String apiKey) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, apiKey, this.connectTimeout, this.readTimeout,
                this.defaultHeaders, this.defaultModel, this.defaultLimits, this.models, this.retry, this.countTokens);
    }

    /**
     * A copy with another connect timeout.
     * @param connectTimeout the connect timeout
     * @return the new settings
     */
    public ClientSettings withConnectTimeout(Duration connectTimeout) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, connectTimeout, this.readTimeout,
                this.defaultHeaders, this.defaultModel, this.defaultLimits, this.models, this.retry, this.countTokens);
    }

    /**
     * A copy with another read timeout.
     * @param readTimeout the read timeout
     * @return the new settings
     */
    public ClientSettings withReadTimeout(Duration readTimeout) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout, readTimeout,
                this.defaultHeaders, this.defaultModel, this.defaultLimits, this.models, this.retry, this.countTokens);
    }

    /**
     * A copy with other headers for every request; they replace the current ones, the
     * dialect's defaults included.
     * @param defaultHeaders headers sent with every request
     * @return the new settings
     */
    public ClientSettings withDefaultHeaders(Map<String, String> defaultHeaders) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout,
                this.readTimeout, defaultHeaders, this.defaultModel, this.defaultLimits, this.models, this.retry,
                this.countTokens);
    }

    /**
     * A copy with another default model.
     * @param defaultModel model used when a request names none, or {@code null}
     * @return the new settings
     */
    public ClientSettings withDefaultModel(@Nullable String defaultModel) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout,
                this.readTimeout, this.defaultHeaders, defaultModel, this.defaultLimits, this.models, this.retry,
                this.countTokens);
    }

    /**
     * A copy with other limits for models without their own entry.
     * @param defaultLimits limits of models without their own entry
     * @return the new settings
     */
    public ClientSettings withDefaultLimits(ModelLimits defaultLimits) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout,
                this.readTimeout, this.defaultHeaders, this.defaultModel, defaultLimits, this.models, this.retry,
                this.countTokens);
    }

    /**
     * A copy with other configured models.
     * @param models settings per configured model
     * @return the new settings
     */
    public ClientSettings withModels(Map<String, ModelSettings> models) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout,
                this.readTimeout, this.defaultHeaders, this.defaultModel, this.defaultLimits, models, this.retry,
                this.countTokens);
    }

    /**
     * A copy with other retry settings.
     * @param retry the retry settings
     * @return the new settings
     */
    public ClientSettings withRetry(RetrySettings retry) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout,
                this.readTimeout, this.defaultHeaders, this.defaultModel, this.defaultLimits, this.models, retry,
                this.countTokens);
    }

    /**
     * A copy that counts input tokens as {@code countTokens} says.
     * @param countTokens whether and when the provider is asked to count input tokens
     * @return the new settings
     */
    public ClientSettings withCountTokens(CountTokensSettings countTokens) {
        return new ClientSettings(this.name, this.provider, this.baseUrl, this.apiKey, this.connectTimeout,
                this.readTimeout, this.defaultHeaders, this.defaultModel, this.defaultLimits, this.models, this.retry,
                countTokens);
    }

    /**
     * The configured model that {@code model} names, so that every name of a model shares
     * its limits, quotas, circuit and meters: the model itself when it is configured, the
     * configured model that lists it among its {@link ModelSettings#aliases() aliases},
     * or the configured model (or alias) it names followed by a snapshot date
     * ({@code claude-sonnet-4-5-20250929}, {@code gpt-4o-2024-08-06}). A request that
     * names one of a model's deployments ({@code MODEL@DEPLOYMENT}) is a call of that
     * model, routed as any other: a request never picks a deployment.
     * @param model a model name, as a request gives it
     * @return the configured model's name, or {@code model} when it names none
     */
    public String configuredModelOf(String model) {
        return ModelNames.configuredModelOf(this.models, model);
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
     * The context window of {@code model}.
     * @param model the model name
     * @return its window in tokens, or {@code null} when not configured (no check)
     */
    public @Nullable Long contextWindowOf(String model) {
        ModelSettings settings = this.models.get(model);
        return (settings != null) ? settings.contextWindow() : null;
    }

    /**
     * The deployments of {@code model}.
     * @param model the model name
     * @return its deployments by name, in configuration order (empty when it has none)
     */
    public Map<String, DeploymentSettings> deploymentsOf(String model) {
        ModelSettings settings = this.models.get(model);
        return (settings != null) ? settings.deployments() : Map.of();
    }

    /**
     * Settings of one configured model.
     *
     * @param name the model name
     * @param limits its limits
     * @param fallback fallback entries, in order: a model of this client, or
     * {@code CLIENT:MODEL} for a model of another client (see
     * {@link io.github.llmthrottle.routing.ModelReference})
     * @param contextWindow the most tokens (input plus reserved output) one request may
     * need, or {@code null} for no check
     * @param deployments the deployments serving the model, by name in configuration
     * order; empty when the client's base URL and API key serve it
     * @param aliases other names requests give the model (a snapshot, a provider's
     * alias), which share its limits, quotas, circuit and meters
     */
    public record ModelSettings(String name, ModelLimits limits, List<String> fallback, @Nullable Long contextWindow,
            Map<String, DeploymentSettings> deployments, List<String> aliases) {

        public ModelSettings {
            fallback = List.copyOf(fallback);
            if (contextWindow != null && contextWindow <= 0) {
                throw new IllegalArgumentException("The context window must be positive, was " + contextWindow);
            }
            deployments = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(deployments));
            aliases = List.copyOf(aliases);
        }

        /**
         * Settings without aliases.
         * @param name the model name
         * @param limits its limits
         * @param fallback fallback entries, in order
         * @param contextWindow the context window, or {@code null} for no check
         * @param deployments the deployments serving the model, by name
         */
        public ModelSettings(String name, ModelLimits limits, List<String> fallback, @Nullable Long contextWindow,
                Map<String, DeploymentSettings> deployments) {
            this(name, limits, fallback, contextWindow, deployments, List.of());
        }

        /**
         * Settings without deployments or aliases.
         * @param name the model name
         * @param limits its limits
         * @param fallback fallback entries, in order
         * @param contextWindow the context window, or {@code null} for no check
         */
        public ModelSettings(String name, ModelLimits limits, List<String> fallback, @Nullable Long contextWindow) {
            this(name, limits, fallback, contextWindow, Map.of());
        }

        /**
         * Settings without a context window, deployments or aliases.
         * @param name the model name
         * @param limits its limits
         * @param fallback fallback entries, in order
         */
        public ModelSettings(String name, ModelLimits limits, List<String> fallback) {
            this(name, limits, fallback, null, Map.of());
        }

    }

}
