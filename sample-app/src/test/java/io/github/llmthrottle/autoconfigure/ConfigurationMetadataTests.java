package io.github.llmthrottle.autoconfigure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.docs.ConfigurationMetadata;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generated configuration metadata is what IDEs show: every {@code llm.throttle} key,
 * whichever module's metadata holds it, must have a description.
 */
class ConfigurationMetadataTests {

    @Test
    void everyPropertyHasADescription() throws IOException {
        List<String> names = new ArrayList<>();
        List<String> undescribed = new ArrayList<>();
        ConfigurationMetadata.properties().forEach((name, property) -> {
            names.add(name);
            if (property.path("description").asString("").isBlank()) {
                undescribed.add(name);
            }
        });
        assertThat(names).contains("llm.throttle.enabled", "llm.throttle.clients", "llm.throttle.retry.max-retries",
                "llm.throttle.retry.jitter", "llm.throttle.queue.capacity", "llm.throttle.queue.max-wait",
                "llm.throttle.store", "llm.throttle.redis.key-prefix", "llm.throttle.redis.on-failure",
                "llm.throttle.redis.timeout", "llm.throttle.redis.retry-interval",
                "llm.throttle.tenants.default.input-tokens-per-minute", "llm.throttle.tenants.overrides",
                "llm.throttle.circuit.enabled", "llm.throttle.circuit.failure-threshold",
                "llm.throttle.circuit.open-wait", "llm.throttle.circuit.half-open-probes",
                "llm.throttle.metrics.enabled", "llm.throttle.metrics.tenant-tag",
                "llm.throttle.metrics.queue-wait.percentiles", "llm.throttle.metrics.queue-wait.slo",
                "llm.throttle.health.signal-window");
        assertThat(undescribed).isEmpty();
    }

}
