package io.github.llmthrottle.client;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.CharacterTokenEstimator;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which configured client a request that another {@code RestClient} sends belongs to.
 */
class LlmThrottleRegistryTests {

    private final LlmThrottleRegistry registry = registry(Map.of("anthropic", "https://api.anthropic.com", "openai",
            "https://api.openai.com/v1", "local", "http://localhost:8089/llm", "proxy", "http://localhost:8089/"));

    @Test
    void requestToAClientsBaseUrlBelongsToIt() {
        assertThat(resolve("https://api.anthropic.com/v1/messages")).isEqualTo("anthropic");
        assertThat(resolve("https://API.openai.com/v1/chat/completions")).isEqualTo("openai");
        assertThat(resolve("https://api.openai.com:443/v1/chat/completions")).isEqualTo("openai");
    }

    @Test
    void requestToAClientsHostOutsideItsBasePathStillBelongsToIt() {
        assertThat(resolve("https://api.openai.com/v2/responses")).isEqualTo("openai");
    }

    @Test
    void longestMatchingBasePathWinsWhenClientsShareAHost() {
        assertThat(resolve("http://localhost:8089/llm/v1/messages")).isEqualTo("local");
        assertThat(resolve("http://localhost:8089/other")).isEqualTo("proxy");
    }

    @Test
    void otherHostsPortsAndSchemesPassThrough() {
        assertThat(resolve("https://example.com/v1/messages")).isNull();
        assertThat(resolve("http://api.anthropic.com/v1/messages")).isNull();
        assertThat(resolve("http://localhost:8090/llm/v1/messages")).isNull();
    }

    private String resolve(String uri) {
        ThrottledClient client = this.registry.resolve(URI.create(uri));
        return (client != null) ? client.getName() : null;
    }

    private static LlmThrottleRegistry registry(Map<String, String> baseUrls) {
        Map<String, ClientSettings> clients = new LinkedHashMap<>();
        new java.util.TreeMap<>(baseUrls).forEach((name, url) -> clients.put(name,
                new ClientSettings(name, ProviderDialect.GENERIC, URI.create(url), null, Duration.ofSeconds(1),
                        Duration.ofSeconds(1), Map.of(), null, ModelLimits.UNLIMITED, Map.of(),
                        RetrySettings.DEFAULTS)));
        ThrottleSettings settings = new ThrottleSettings(clients, 10, Duration.ofSeconds(1), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), 10, Duration.ofSeconds(1),
                (tenant) -> null, new LocalBucketStore(TimeSource.system()), TimeSource.system());
        return LlmThrottleRegistry.create(settings, limiters, new CharacterTokenEstimator(), TenantResolver.NONE,
                TimeSource.system(), new CompositeThrottleObserver(java.util.List.of()));
    }

}
