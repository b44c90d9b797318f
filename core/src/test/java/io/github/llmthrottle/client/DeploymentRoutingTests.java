package io.github.llmthrottle.client;

import java.net.URI;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where an attempt to a deployment goes: the request's path below the client's base URL
 * and its query, under the deployment's base URL.
 */
class DeploymentRoutingTests {

    @Test
    void thePathBelowTheClientsBaseUrlMovesUnderTheDeployments() {
        assertThat(moved("https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1",
                "https://eu.example.com/openai/v1/"))
            .hasToString("https://eu.example.com/openai/v1/chat/completions");
    }

    @Test
    void theQueryIsKept() {
        assertThat(
                moved("https://east.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
                        "https://east.openai.azure.com/openai/deployments/gpt-4o",
                        "https://west.openai.azure.com/openai/deployments/gpt-4o-west"))
            .hasToString(
                    "https://west.openai.azure.com/openai/deployments/gpt-4o-west/chat/completions?api-version=2024-10-21");
    }

    @Test
    void aClientWithoutBasePathMovesTheWholePath() {
        assertThat(moved("http://127.0.0.1:8080/v1/messages", "http://127.0.0.1:8080", "http://127.0.0.1:9090"))
            .hasToString("http://127.0.0.1:9090/v1/messages");
    }

    @Test
    void aPathOutsideTheClientsBasePathMovesWhole() {
        assertThat(moved("https://llm.example.com/v10/models", "https://llm.example.com/v1",
                "https://other.example.com/v1"))
            .hasToString("https://other.example.com/v1/v10/models");
    }

    private static URI moved(String uri, String from, String to) {
        return DeploymentRouting.moved(URI.create(uri), URI.create(from), URI.create(to));
    }

}
