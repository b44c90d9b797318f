package io.github.llmthrottle.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Points each client at the real API when its key is set ({@code ANTHROPIC_API_KEY},
 * {@code OPENAI_API_KEY}) and at the embedded simulated providers otherwise, each on a
 * free loopback port (the Anthropic one, Sonnet's second deployment, the
 * OpenAI-compatible one). Runs before the configuration is bound, so
 * {@code application.yml} can refer to {@code ${sample.anthropic.base-url}}. The demo
 * burst only runs against the simulator, and the endpoint's writes are allowed only when
 * no real key is set.
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
        // the endpoint's writes (limits, pauses) are for the simulator too: with a real
        // key nobody who reaches the port may change them (an application that wants
        // them grants writes to operators only, behind authentication)
        properties.put("sample.endpoint-access", (anthropicKey || openAiKey) ? "read-only" : "unrestricted");
        String simulator = null;
        String sonnetEu = null;
        String openAi = null;
        if (enabled) {
            Set<Integer> taken = new HashSet<>();
            simulator = "http://127.0.0.1:" + port(environment, properties, "sample.simulator.port", taken);
            sonnetEu = "http://127.0.0.1:" + port(environment, properties, "sample.simulator.eu-port", taken);
            openAi = "http://127.0.0.1:" + port(environment, properties, "sample.simulator.openai-port", taken);
            properties.put("sample.simulator.base-url", simulator);
        }
        boolean realAnthropic = anthropicKey || simulator == null;
        properties.put("sample.anthropic.base-url", realAnthropic ? "https://api.anthropic.com" : simulator);
        // Sonnet's second deployment: another region of the simulator, or with a real key
        // the same API with ANTHROPIC_EU_API_KEY (another workspace)
        properties.put("sample.anthropic-eu.base-url", realAnthropic ? "https://api.anthropic.com" : sonnetEu);
        // each simulated provider on a port of its own, as real providers sit on hosts of
        // their own: llm-throttle tells the clients of a request that is not sent through
        // their own RestClient (Spring AI's) apart by host and port, then longest base
        // path
        properties.put("sample.openai.base-url",
                (openAiKey || openAi == null) ? "https://api.openai.com/v1" : openAi + "/v1");
        environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE, properties));
    }

    private static int port(ConfigurableEnvironment environment, Map<String, Object> properties, String name,
            Set<Integer> taken) {
        int port = environment.getProperty(name, Integer.class, 0);
        if (port == 0) {
            port = freePort(taken);
        }
        taken.add(port);
        properties.put(name, port);
        return port;
    }

    /**
     * A free loopback port, none of {@code taken}, below the ephemeral range (32768 and
     * up on Linux), so that no outgoing connection can take it between now and the moment
     * the simulator binds it.
     */
    private static int freePort(Set<Integer> taken) {
        int start = ThreadLocalRandom.current().nextInt(10_000);
        for (int i = 0; i < 10_000; i++) {
            int port = 20_000 + (start + i) % 10_000;
            if (taken.contains(port)) {
                continue;
            }
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
