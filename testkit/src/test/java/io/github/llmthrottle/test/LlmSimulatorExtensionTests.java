package io.github.llmthrottle.test;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.messages;
import static org.assertj.core.api.Assertions.assertThat;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LlmSimulatorExtensionTests {

    @RegisterExtension
    static LlmSimulatorExtension sim = LlmSimulatorExtension.builder()
        .model("claude-opus-4-7", ModelLimits.of(1, 0, 0))
        .noLatency()
        .build();

    private static int port;

    @Test
    @Order(1)
    void theSimulatorIsRunningAndInjectable(LlmSimulator simulator) {
        assertThat(simulator).isSameAs(sim.simulator());
        port = simulator.port();
        simulator.script("claude-opus-4-7", Fault.status(529), Fault.status(529));
        assertThat(anthropic(simulator, messages("claude-opus-4-7", 10, "hi")).statusCode()).isEqualTo(529);
        simulator.script("claude-opus-4-7", Fault.ok());
        simulator.setHeader("x-left-over", "yes");
        assertThat(simulator.pendingScript("claude-opus-4-7")).isEqualTo(2);
    }

    @Test
    @Order(2)
    void eachTestStartsFromTheBuiltConfiguration(LlmSimulator simulator) {
        assertThat(simulator.port()).as("one simulator for the class").isEqualTo(port);
        assertThat(simulator.pendingScript("claude-opus-4-7")).isZero();
        assertThat(simulator.stats().attempts()).isZero();
        var response = anthropic(simulator, messages("claude-opus-4-7", 10, "hi"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-left-over")).isEmpty();
        assertThat(sim.baseUrl()).isEqualTo(simulator.baseUrl());
    }

    @Test
    @Order(3)
    void bucketsAreRefilledBetweenTests(LlmSimulator simulator) {
        assertThat(anthropic(simulator, messages("claude-opus-4-7", 10, "hi")).statusCode()).isEqualTo(200);
        assertThat(anthropic(simulator, messages("claude-opus-4-7", 10, "hi")).statusCode()).isEqualTo(429);
    }

}
