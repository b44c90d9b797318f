package io.github.llmthrottle.webclient.autoconfigure;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.webclient.ThrottledWebClientFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.http.client.reactive.ClientHttpConnectorBuilder;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ResourceLoader;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Auto-configuration of the throttled {@code WebClient}, when Spring WebFlux's
 * {@code WebClient} and Boot's {@code WebClient.Builder} are on the classpath: every
 * {@code ClientHttpConnector} bean is wrapped in the throttling connector (so every
 * {@code WebClient} Boot's builder builds throttles the calls to configured clients), and
 * each client gets a {@code NAMEWebClient} bean.
 */
@AutoConfiguration(after = { LlmThrottleAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class })
@ConditionalOnClass({ WebClient.class, WebClientAutoConfiguration.class })
@ConditionalOnBean(LlmThrottleRegistry.class)
@Import(ThrottledWebClientsRegistrar.class)
public final class LlmThrottleWebClientAutoConfiguration {

    @Bean
    static ThrottlingClientHttpConnectorPostProcessor llmThrottleClientHttpConnectorPostProcessor(
            ObjectProvider<LlmThrottleRegistry> registry) {
        return new ThrottlingClientHttpConnectorPostProcessor(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    ThrottledWebClientFactory llmThrottleWebClientFactory(LlmThrottleRegistry registry,
            ObjectProvider<WebClient.Builder> builders, ObjectProvider<ClientHttpConnectorBuilder<?>> connectorBuilder,
            ObjectProvider<HttpClientSettings> httpClientSettings, ResourceLoader resourceLoader) {
        return new ThrottledWebClientFactory(registry, () -> builders.getIfAvailable(WebClient::builder),
                connectorBuilder
                    .getIfAvailable(() -> ClientHttpConnectorBuilder.detect(resourceLoader.getClassLoader())),
                httpClientSettings.getIfAvailable(HttpClientSettings::defaults));
    }

}
