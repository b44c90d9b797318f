package io.github.llmthrottle.test;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points an application under test at a running {@link LlmSimulator}, from a
 * {@code @DynamicPropertySource} method, the way Boot's Testcontainers support points it
 * at a container: the llm-throttle client's {@code base-url}, and Spring AI's matching
 * {@code base-url} so that its chat model goes through the same client.
 *
 * <pre class="code">
 * static LlmSimulator simulator = LlmSimulator.start();
 *
 * &#064;DynamicPropertySource
 * static void simulator(DynamicPropertyRegistry registry) {
 *     SimulatorProperties.anthropic(registry, "anthropic", simulator);
 * }
 * </pre>
 */
public final class SimulatorProperties {

    private SimulatorProperties() {
    }

    /**
     * Points the Anthropic client {@code client}
     * ({@code llm.throttle.clients.CLIENT.base-url}) and Spring AI's Anthropic model
     * ({@code spring.ai.anthropic.base-url}) at the simulator.
     * @param registry the test's dynamic properties
     * @param client the name of the client under {@code llm.throttle.clients}
     * @param simulator the running simulator
     */
    public static void anthropic(DynamicPropertyRegistry registry, String client, LlmSimulator simulator) {
        registry.add(baseUrl(client), simulator::baseUrl);
        registry.add("spring.ai.anthropic.base-url", simulator::baseUrl);
    }

    /**
     * Points the OpenAI-compatible client {@code client}
     * ({@code llm.throttle.clients.CLIENT.base-url}, with {@code /v1}) and Spring AI's
     * OpenAI model ({@code spring.ai.openai.base-url}) at the simulator.
     * @param registry the test's dynamic properties
     * @param client the name of the client under {@code llm.throttle.clients}
     * @param simulator the running simulator
     */
    public static void openAi(DynamicPropertyRegistry registry, String client, LlmSimulator simulator) {
        registry.add(baseUrl(client), simulator::openAiBaseUrl);
        registry.add("spring.ai.openai.base-url", simulator::openAiBaseUrl);
    }

    private static String baseUrl(String client) {
        if (client == null || client.isBlank() || client.contains(".")) {
            throw new IllegalArgumentException("The client name must be a key under llm.throttle.clients, such as "
                    + "'anthropic', but was '" + client + "'");
        }
        return "llm.throttle.clients." + client + ".base-url";
    }

}
