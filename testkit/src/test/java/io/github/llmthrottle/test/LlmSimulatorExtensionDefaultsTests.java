package io.github.llmthrottle.test;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static io.github.llmthrottle.test.SimClient.chat;
import static io.github.llmthrottle.test.SimClient.openAi;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LlmSimulatorExtension.class)
class LlmSimulatorExtensionDefaultsTests {

    @Test
    void extendWithStartsASimulatorWithTheDefaults(LlmSimulator simulator) {
        assertThat(openAi(simulator, chat("gpt-4o", 10, "hi")).statusCode()).isEqualTo(200);
        assertThat(simulator.stats().successes()).isEqualTo(1);
    }

}
