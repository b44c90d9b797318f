package io.github.llmthrottle.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.metrics.ThrottleMetricsOptions;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Micrometer settings of llm-throttle ({@code llm.throttle.metrics.*}), used when
 * Micrometer is on the classpath.
 */
@ConfigurationProperties("llm.throttle.metrics")
public class LlmThrottleMetricsProperties {

    /**
     * Whether llm-throttle registers its llm.* meters when a MeterRegistry is present.
     */
    private boolean enabled = true;

    /**
     * Whether per-call meters carry a tenant tag (the tenant of the @Throttled
     * invocation, none otherwise); off by default because every tenant adds a series.
     */
    private boolean tenantTag = false;

    /**
     * Distribution settings of the queue wait timers (llm.queue.wait,
     * llm.queue.wait.slo).
     */
    private final QueueWait queueWait = new QueueWait();

    /**
     * The OpenTelemetry GenAI client metrics (gen_ai.client.token.usage,
     * gen_ai.client.operation.duration, gen_ai.client.operation.time_to_first_chunk).
     */
    private final GenAi genAi = new GenAi();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isTenantTag() {
        return this.tenantTag;
    }

    public void setTenantTag(boolean tenantTag) {
        this.tenantTag = tenantTag;
    }

    public QueueWait getQueueWait() {
        return this.queueWait;
    }

    public GenAi getGenAi() {
        return this.genAi;
    }

    ThrottleMetricsOptions toOptions() {
        return new ThrottleMetricsOptions(this.tenantTag, this.queueWait.percentiles, this.queueWait.slo);
    }

    /**
     * Distribution settings of the queue wait timers.
     */
    public static class QueueWait {

        /**
         * Percentiles that llm.queue.wait publishes, between 0 and 1.
         */
        private List<Double> percentiles = new ArrayList<>(ThrottleMetricsOptions.DEFAULTS.queueWaitPercentiles());

        /**
         * Service-level objective boundaries of the llm.queue.wait.slo histogram; empty
         * for none.
         */
        private List<Duration> slo = new ArrayList<>(ThrottleMetricsOptions.DEFAULTS.queueWaitSlos());

        public List<Double> getPercentiles() {
            return this.percentiles;
        }

        public void setPercentiles(List<Double> percentiles) {
            this.percentiles = percentiles;
        }

        public List<Duration> getSlo() {
            return this.slo;
        }

        public void setSlo(List<Duration> slo) {
            this.slo = slo;
        }

    }

    /**
     * The OpenTelemetry GenAI client metrics.
     */
    public static class GenAi {

        /**
         * Whether to publish the OpenTelemetry GenAI client metrics of every throttled
         * call, besides the llm.* meters.
         */
        private boolean enabled = false;

        /**
         * Whether to publish gen_ai.client.token.usage: detect leaves it to Spring AI
         * when its chat model observations publish their own (a counter of that name,
         * which Prometheus cannot hold beside a histogram), always and never decide
         * regardless.
         */
        private TokenUsage tokenUsage = TokenUsage.DETECT;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public TokenUsage getTokenUsage() {
            return this.tokenUsage;
        }

        public void setTokenUsage(TokenUsage tokenUsage) {
            this.tokenUsage = tokenUsage;
        }

    }

    /**
     * Whether llm-throttle publishes gen_ai.client.token.usage.
     */
    public enum TokenUsage {

        /**
         * Publish it unless Spring AI's chat model observations publish their own.
         */
        DETECT,

        /**
         * Publish it (turn Spring AI's chat model observations off, or Prometheus keeps
         * only one of the two).
         */
        ALWAYS,

        /**
         * Never publish it.
         */
        NEVER

    }

}
