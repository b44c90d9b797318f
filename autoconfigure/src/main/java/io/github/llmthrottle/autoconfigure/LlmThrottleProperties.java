package io.github.llmthrottle.autoconfigure;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.actuate.ShowTenants;
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
    private Map<String, ClientProperties> clients = new LinkedHashMap<>();

    /**
     * Share of every limit admitted, configured and provider-reported alike, as a safety
     * margin: 0.9 sends at most 90% of each requests and tokens per minute limit. More
     * than 0, at most 1.
     */
    private double utilization = 1.0;

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
     * How the input tokens of a request are estimated before it is sent.
     */
    private final Estimation estimation = new Estimation();

    /**
     * When the llmthrottle endpoint and the health component show tenant ids, which may
     * name customers: never (a tenant's quota is listed without its id, and health counts
     * the tenants whose quota is exhausted), when-authorized (to an authenticated user of
     * the endpoint; health hides them), or always.
     */
    private ShowTenants showTenants = ShowTenants.NEVER;

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

    /**
     * Most names that are not configured tracked at once: models named only in requests,
     * per client, and tenants, per model, for quotas and (with metrics.tenant-tag) per
     * client for meter series. Beyond it the least recently used idle one is forgotten (a
     * model with its limiter and meters, a tenant with its buckets once they are full
     * again, so that cycling through names resets no limit, its quota counters and
     * series), so names that requests make up cannot grow memory, the endpoint's output
     * or the metrics without bound.
     */
    private int maxTrackedNames = 100;

    /**
     * Currency of every model's price and every budget (a code such as USD or EUR; no
     * conversion is made).
     */
    private String currency = "USD";

    /**
     * Share of a budget in money (above 0, at most 1) beyond which its models are tried
     * after the candidates whose budgets are not that far spent under @Throttled.
     */
    private double budgetWarningShare = 0.9;

    public String getCurrency() {
        return this.currency;
    }

    public void setCurrency(String currency) {
        this.currency = currency;
    }

    public double getBudgetWarningShare() {
        return this.budgetWarningShare;
    }

    public void setBudgetWarningShare(double budgetWarningShare) {
        this.budgetWarningShare = budgetWarningShare;
    }

    public boolean isEnabled() {
        return this.enabled;
    }

    public double getUtilization() {
        return this.utilization;
    }

    public void setUtilization(double utilization) {
        this.utilization = utilization;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, ClientProperties> getClients() {
        return this.clients;
    }

    public void setClients(Map<String, ClientProperties> clients) {
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

    public Estimation getEstimation() {
        return this.estimation;
    }

    public ShowTenants getShowTenants() {
        return this.showTenants;
    }

    public void setShowTenants(ShowTenants showTenants) {
        this.showTenants = showTenants;
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

    public int getMaxTrackedNames() {
        return this.maxTrackedNames;
    }

    public void setMaxTrackedNames(int maxTrackedNames) {
        this.maxTrackedNames = maxTrackedNames;
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
        private Map<String, TenantOverride> overrides = new LinkedHashMap<>();

        public TenantLimits getDefault() {
            return this.defaults;
        }

        public Map<String, TenantOverride> getOverrides() {
            return this.overrides;
        }

        public void setOverrides(Map<String, TenantOverride> overrides) {
            this.overrides = overrides;
        }

    }

    /**
     * Per-minute limits of one tenant. Unset means no tenant limit for that dimension.
     */
    public static class TenantLimits extends RateLimits {

    }

    /**
     * Limits and weight of one tenant; unset limits inherit the defaults.
     */
    public static class TenantOverride extends TenantLimits {

        /**
         * Weight of the tenant (a positive integer or decimal, default 1): when calls of
         * several tenants of one priority wait for a model, they are admitted in
         * proportion to their weights, counted in estimated tokens.
         */
        private @Nullable BigDecimal weight;

        public @Nullable BigDecimal getWeight() {
            return this.weight;
        }

        public void setWeight(@Nullable BigDecimal weight) {
            this.weight = weight;
        }

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

    /**
     * How the input tokens of a request are estimated before it is sent.
     */
    public static class Estimation {

        /**
         * Input tokens estimated for a document (a PDF or file) given by URL or file id,
         * whose content the request does not carry. Documents sent inline are estimated
         * from their content (a PDF by its pages, a text document as text).
         */
        private long documentTokens = 3000;

        public long getDocumentTokens() {
            return this.documentTokens;
        }

        public void setDocumentTokens(long documentTokens) {
            this.documentTokens = documentTokens;
        }

    }

}
