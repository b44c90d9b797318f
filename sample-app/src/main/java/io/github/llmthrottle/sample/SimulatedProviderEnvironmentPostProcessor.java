package io.github.llmthrottle.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Points each client at the real API when its key is set ({@code ANTHROPIC_API_KEY},
 * {@code OPENAI_API_KEY}) and at the embedded simulated provider otherwise, on a free
 * loopback port. Runs before the configuration is bound, so {@code application.yml} can
 * refer to {@code ${sample.anthropic.base-url}}. The demo burst only runs against the
 * simulator.
 */
class SimulatedProviderEnvironmentPostProcessor implements EnvironmentPostProcessor {

    static final String PROPERTY_SOURCE = "sampleSimulator";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (environment.getPropertySources().contains(PROPERTY_SOURCE)) {
            return;
        }
        boolean anthropicKey = StringUtils.hasText(environment.getProperty("ANTHROPIC_API_KEY"));
        boolean openAiKey = StringUtils.hasText(environment.getProperty("OPENAI_API_KEY"));
        boolean enabled = environment.getProperty("sample.simulator.enabled", Boolean.class,
                !(anthropicKey && openAiKey));
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("sample.simulator.enabled", String.valueOf(enabled));
        // a burst of hundreds of calls is for the simulator, never for a paid API
        properties.put("sample.demo-allowed", String.valueOf(enabled && !anthropicKey));
        String simulator = null;
        if (enabled) {
            int port = environment.getProperty("sample.simulator.port", Integer.class, 0);
            if (port == 0) {
                port = freePort();
            }
            simulator = "http://127.0.0.1:" + port;
            properties.put("sample.simulator.port", port);
            properties.put("sample.simulator.base-url", simulator);
        }
        properties.put("sample.anthropic.base-url",
                (anthropicKey || simulator == null) ? "https://api.anthropic.com" : simulator);
        // the simulator serves both APIs on one port, and llm-throttle tells the clients
        // of
        // a request that is not sent through their own RestClient (Spring AI's) apart by
        // host, then longest base path: under one host, the OpenAI client's /v1 would
        // claim
        // Anthropic's /v1/messages, so OpenAI's side is addressed by name
        properties.put("sample.openai.base-url", (openAiKey || simulator == null) ? "https://api.openai.com/v1"
                : "http://localhost:" + properties.get("sample.simulator.port") + "/v1");
        environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE, properties));
    }

    /**
     * A free loopback port below the ephemeral range (32768 and up on Linux), so that no
     * outgoing connection can take it between now and the moment the simulator binds it.
     */
    private static int freePort() {
        int start = ThreadLocalRandom.current().nextInt(10_000);
        for (int i = 0; i < 10_000; i++) {
            int port = 20_000 + (start + i) % 10_000;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return port;
            }
            catch (IOException ex) {
                // taken; try the next one
            }
        }
        throw new UncheckedIOException(
                new IOException("No free loopback port between 20000 and 29999 for the simulated provider"));
    }

}
