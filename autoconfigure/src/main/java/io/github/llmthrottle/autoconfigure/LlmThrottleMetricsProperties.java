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

}
