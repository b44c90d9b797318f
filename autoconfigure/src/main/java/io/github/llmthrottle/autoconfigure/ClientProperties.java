package io.github.llmthrottle.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.provider.ProviderDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * One configured client: a provider endpoint with its credentials, per-model limits, and
 * token quotas of the client as a whole.
 */
public class ClientProperties extends TokenQuotaProperties {

    /**
     * Wire dialect of the provider: anthropic, openai (OpenAI-compatible), ollama
     * (Ollama's own API) or generic.
     */
    private ProviderDialect provider = ProviderDialect.GENERIC;

    /**
     * Base URL of the provider's API, for example https://api.anthropic.com.
     */
    private @Nullable String baseUrl;

    /**
     * API key, sent as x-api-key (anthropic) or Authorization: Bearer (openai, ollama,
     * generic); optional for ollama. Never logged or exposed.
     */
    private @Nullable String apiKey;

    /**
     * Connect timeout of the client's HTTP requests.
     */
    private Duration connectTimeout = Duration.ofSeconds(10);

    /**
     * Read timeout of the client's HTTP requests; long generations need minutes.
     */
    private Duration readTimeout = Duration.ofMinutes(10);

    /**
     * Headers sent with every request; anthropic clients send anthropic-version:
     * 2023-06-01 unless set here.
     */
    private Map<String, String> defaultHeaders = new LinkedHashMap<>();

    /**
     * Model used when a request or an annotation names none.
     */
    private @Nullable String defaultModel;

    /**
     * Limits of models that are not listed under models.
     */
    private final ModelLimitsProperties defaultLimits = new ModelLimitsProperties();

    /**
     * Limits and fallback chain per model name.
     */
    private Map<String, ModelProperties> models = new LinkedHashMap<>();

    /**
     * Share of the limits of this client's models admitted, configured and
     * provider-reported alike (more than 0, at most 1); unset means
     * llm.throttle.utilization.
     */
    private @Nullable Double utilization;

    /**
     * Per-client overrides of llm.throttle.retry; unset values inherit.
     */
    @NestedConfigurationProperty
    private final RetryOverrideProperties retry = new RetryOverrideProperties();

    /**
     * How the input tokens of a request are known before it is sent: characters (an
     * estimate from the characters of its text, learned from usage) or count-tokens
     * (anthropic only: large requests and those with images or documents are counted by
     * the provider's count_tokens endpoint, the estimate standing in when that is slow or
     * refused).
     */
    private Estimation estimation = Estimation.CHARACTERS;

    /**
     * When and within what budget requests are counted with estimation: count-tokens.
     */
    @NestedConfigurationProperty
    private final CountTokensProperties countTokens = new CountTokensProperties();

    public ProviderDialect getProvider() {
        return this.provider;
    }

    public void setProvider(ProviderDialect provider) {
        this.provider = provider;
    }

    public @Nullable String getBaseUrl() {
        return this.baseUrl;
    }

    public void setBaseUrl(@Nullable String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public @Nullable String getApiKey() {
        return this.apiKey;
    }

    public void setApiKey(@Nullable String apiKey) {
        this.apiKey = apiKey;
    }

    public Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getReadTimeout() {
        return this.readTimeout;
    }

    public void setReadTimeout(Duration readTimeout) {
        this.readTimeout = readTimeout;
    }

    public Map<String, String> getDefaultHeaders() {
        return this.defaultHeaders;
    }

    public void setDefaultHeaders(Map<String, String> defaultHeaders) {
        this.defaultHeaders = defaultHeaders;
    }

    public @Nullable String getDefaultModel() {
        return this.defaultModel;
    }

    public void setDefaultModel(@Nullable String defaultModel) {
        this.defaultModel = defaultModel;
    }

    public ModelLimitsProperties getDefaultLimits() {
        return this.defaultLimits;
    }

    public Map<String, ModelProperties> getModels() {
        return this.models;
    }

    public void setModels(Map<String, ModelProperties> models) {
        this.models = models;
    }

    public RetryOverrideProperties getRetry() {
        return this.retry;
    }

    public Estimation getEstimation() {
        return this.estimation;
    }

    public void setEstimation(Estimation estimation) {
        this.estimation = estimation;
    }

    public CountTokensProperties getCountTokens() {
        return this.countTokens;
    }

    @Override
    public String toString() {
        return "Client[provider=" + this.provider + ", baseUrl=" + this.baseUrl + ", apiKey="
                + ((this.apiKey != null) ? "******" : null) + ", defaultModel=" + this.defaultModel + ", models="
                + this.models.keySet() + "]";
    }

    /** How a client knows the input tokens of a request before sending it. */
    public enum Estimation {

        /** Estimated from the characters of the prompt text. */
        CHARACTERS,

        /** Counted by the provider's count_tokens endpoint when worth it (anthropic). */
        COUNT_TOKENS

    }

    public @Nullable Double getUtilization() {
        return this.utilization;
    }

    public void setUtilization(@Nullable Double utilization) {
        this.utilization = utilization;
    }

}
