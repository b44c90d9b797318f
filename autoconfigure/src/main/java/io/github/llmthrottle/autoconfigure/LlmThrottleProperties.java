package io.github.llmthrottle.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.provider.ProviderDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration properties of llm-throttle ({@code llm.throttle.*}). Bound once at
 * startup, validated and mapped into the immutable settings the core uses.
 */
@ConfigurationProperties("llm.throttle")
public class LlmThrottleProperties {

    /**
     * Whether llm-throttle is enabled: when false no throttled clients are registered and
     * other RestClients are left untouched.
     */
    private boolean enabled = true;

    /**
     * Clients by name (free text); each registers a RestClient bean named NAMERestClient.
     */
    private Map<String, Client> clients = new LinkedHashMap<>();

    /**
     * Retry defaults for every client.
     */
    @NestedConfigurationProperty
    private final RetryProperties retry = new RetryProperties();

    /**
     * Admission queue settings, per client and model.
     */
    private final Queue queue = new Queue();

    /**
     * Per-tenant limits, applied together with the model's limits.
     */
    private final Tenants tenants = new Tenants();

    /**
     * Circuit breaker settings, one circuit per client and model.
     */
    private final Circuit circuit = new Circuit();

    /**
     * Adaptive concurrency limit of every model.
     */
    @NestedConfigurationProperty
    private final ConcurrencyProperties concurrency = new ConcurrencyProperties();

    /**
     * Slow start of every model: one call at a time until the provider's rate-limit
     * headers are known.
     */
    @NestedConfigurationProperty
    private final SlowStartProperties slowStart = new SlowStartProperties();

    /**
     * Where the rate-limit buckets live: memory (this instance) or redis (shared by every
     * instance that uses the same Redis server; see llm.throttle.redis).
     */
    private Store store = Store.MEMORY;

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, Client> getClients() {
        return this.clients;
    }

    public void setClients(Map<String, Client> clients) {
        this.clients = clients;
    }

    public RetryProperties getRetry() {
        return this.retry;
    }

    public Queue getQueue() {
        return this.queue;
    }

    public Tenants getTenants() {
        return this.tenants;
    }

    public Circuit getCircuit() {
        return this.circuit;
    }

    public ConcurrencyProperties getConcurrency() {
        return this.concurrency;
    }

    public SlowStartProperties getSlowStart() {
        return this.slowStart;
    }

    public Store getStore() {
        return this.store;
    }

    public void setStore(Store store) {
        this.store = store;
    }

    /**
     * One configured client: a provider endpoint with its credentials, per-model limits,
     * and token quotas of the client as a whole.
     */
    public static class Client extends TokenQuotaProperties {

        /**
         * Wire dialect of the provider: anthropic, openai (OpenAI-compatible) or generic.
         */
        private ProviderDialect provider = ProviderDialect.GENERIC;

        /**
         * Base URL of the provider's API, for example https://api.anthropic.com.
         */
        private @Nullable String baseUrl;

        /**
         * API key, sent as x-api-key (anthropic) or Authorization: Bearer (openai,
         * generic). Never logged or exposed.
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
        private final Limits defaultLimits = new Limits();

        /**
         * Limits and fallback chain per model name.
         */
        private Map<String, Model> models = new LinkedHashMap<>();

        /**
         * Per-client overrides of llm.throttle.retry; unset values inherit.
         */
        @NestedConfigurationProperty
        private final RetryOverrideProperties retry = new RetryOverrideProperties();

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

        public Limits getDefaultLimits() {
            return this.defaultLimits;
        }

        public Map<String, Model> getModels() {
            return this.models;
        }

        public void setModels(Map<String, Model> models) {
            this.models = models;
        }

        public RetryOverrideProperties getRetry() {
            return this.retry;
        }

        @Override
        public String toString() {
            return "Client[provider=" + this.provider + ", baseUrl=" + this.baseUrl + ", apiKey="
                    + ((this.apiKey != null) ? "******" : null) + ", defaultModel=" + this.defaultModel + ", models="
                    + this.models.keySet() + "]";
        }

    }

    /**
     * Per-minute limits of a model (or of models without their own entry), and its
     * concurrency ceiling. Unset means no local limit for that dimension.
     */
    public static class Limits extends RateLimits {

        /**
         * Ceiling of the model's adaptive concurrency limit (instead of
         * llm.throttle.concurrency.max); calls beyond the limit wait in the priority
         * queue.
         */
        private @Nullable Integer maxConcurrency;

        public @Nullable Integer getMaxConcurrency() {
            return this.maxConcurrency;
        }

        public void setMaxConcurrency(@Nullable Integer maxConcurrency) {
            this.maxConcurrency = maxConcurrency;
        }

    }

    /**
     * A model's limits, fallback chain, context window and deployments.
     */
    public static class Model extends Limits {

        /**
         * Models to route to, in order, when this one cannot take a call: a model
         * configured under the same client, or CLIENT:MODEL for a model of another client
         * (another provider), e.g. openai:gpt-4o-mini.
         */
        private List<String> fallback = new ArrayList<>();

        /**
         * Context window of the model in tokens: a request whose estimated input plus
         * max_tokens exceeds it is not sent (@Throttled routes it to the next model whose
         * window fits). Unset means no check.
         */
        private @Nullable Long contextWindow;

        /**
         * Deployments serving the model, by name: other base URLs and/or API keys (other
         * organisations, regions, Azure resources), each with its own limits and circuit;
         * a call goes to the deployment that admits it soonest.
         */
        private Map<String, DeploymentProperties> deployments = new LinkedHashMap<>();

        public Map<String, DeploymentProperties> getDeployments() {
            return this.deployments;
        }

        public void setDeployments(Map<String, DeploymentProperties> deployments) {
            this.deployments = deployments;
        }

        public List<String> getFallback() {
            return this.fallback;
        }

        public void setFallback(List<String> fallback) {
            this.fallback = fallback;
        }

        public @Nullable Long getContextWindow() {
            return this.contextWindow;
        }

        public void setContextWindow(@Nullable Long contextWindow) {
            this.contextWindow = contextWindow;
        }

    }

    /**
     * Admission queue settings.
     */
    public static class Queue {

        /**
         * Waiting calls per client and model, all priorities together; a call that finds
         * the queue full fails at once.
         */
        private int capacity = 1000;

        /**
         * Longest time a call waits for admission, unless its annotation says otherwise.
         */
        private Duration maxWait = Duration.ofSeconds(30);

        public int getCapacity() {
            return this.capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }

        public Duration getMaxWait() {
            return this.maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

    }

    /**
     * Tenant limits: a default for every tenant and overrides by tenant id.
     */
    public static class Tenants {

        /**
         * Limits of every tenant that has no override; unset means no tenant limit.
         */
        private final TenantLimits defaults = new TenantLimits();

        /**
         * Limits by tenant id; unset values inherit the defaults.
         */
        private Map<String, TenantLimits> overrides = new LinkedHashMap<>();

        public TenantLimits getDefault() {
            return this.defaults;
        }

        public Map<String, TenantLimits> getOverrides() {
            return this.overrides;
        }

        public void setOverrides(Map<String, TenantLimits> overrides) {
            this.overrides = overrides;
        }

    }

    /**
     * Per-minute limits of one tenant. Unset means no tenant limit for that dimension.
     */
    public static class TenantLimits extends RateLimits {

    }

    /**
     * Requests, input tokens and output tokens per minute, the three dimensions providers
     * meter, and token quotas per calendar day and month (UTC).
     */
    public abstract static class RateLimits extends TokenQuotaProperties {

        /**
         * Requests per minute.
         */
        private @Nullable Long requestsPerMinute;

        /**
         * Input tokens per minute (estimated before the call, corrected from the
         * response's usage).
         */
        private @Nullable Long inputTokensPerMinute;

        /**
         * Output tokens per minute (reserved from max_tokens, the unused part refunded).
         */
        private @Nullable Long outputTokensPerMinute;

        public @Nullable Long getRequestsPerMinute() {
            return this.requestsPerMinute;
        }

        public void setRequestsPerMinute(@Nullable Long requestsPerMinute) {
            this.requestsPerMinute = requestsPerMinute;
        }

        public @Nullable Long getInputTokensPerMinute() {
            return this.inputTokensPerMinute;
        }

        public void setInputTokensPerMinute(@Nullable Long inputTokensPerMinute) {
            this.inputTokensPerMinute = inputTokensPerMinute;
        }

        public @Nullable Long getOutputTokensPerMinute() {
            return this.outputTokensPerMinute;
        }

        public void setOutputTokensPerMinute(@Nullable Long outputTokensPerMinute) {
            this.outputTokensPerMinute = outputTokensPerMinute;
        }

    }

    /**
     * Circuit breaker settings: a model's circuit opens after consecutive overload (529),
     * server (5xx), 408 or connection failures, fails calls fast while open
     * (so @Throttled routes to a fallback model), then lets a few probes through.
     */
    public static class Circuit {

        /**
         * Whether circuits open; when false every circuit stays closed.
         */
        private boolean enabled = true;

        /**
         * Consecutive failing attempts (overloaded, 5xx, 408, connection errors; not 429
         * rate limits or other 4xx) that open a model's circuit.
         */
        private int failureThreshold = 5;

        /**
         * How long an open circuit fails calls at once before it lets probe calls
         * through.
         */
        private Duration openWait = Duration.ofSeconds(30);

        /**
         * Probe calls let through at once while half-open; that many successes close the
         * circuit, one failure opens it again.
         */
        private int halfOpenProbes = 2;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getFailureThreshold() {
            return this.failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Duration getOpenWait() {
            return this.openWait;
        }

        public void setOpenWait(Duration openWait) {
            this.openWait = openWait;
        }

        public int getHalfOpenProbes() {
            return this.halfOpenProbes;
        }

        public void setHalfOpenProbes(int halfOpenProbes) {
            this.halfOpenProbes = halfOpenProbes;
        }

    }

    /**
     * Where rate-limit buckets are kept.
     */
    public enum Store {

        /** In this instance's memory. */
        MEMORY,

        /** In Redis, shared by every instance that uses the same server. */
        REDIS

    }

}
