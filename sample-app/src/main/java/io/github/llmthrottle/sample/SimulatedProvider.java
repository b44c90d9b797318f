package io.github.llmthrottle.sample;

import java.time.Duration;

import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.OutputTokens;
import io.github.llmthrottle.test.RandomFaults;

/**
 * The embedded simulated provider the demo runs against when no API key is set: Anthropic
 * models with deliberately tight limits (and an overloaded Opus now and then, so that
 * fallbacks show) and an OpenAI-compatible model, on a loopback port.
 */
public final class SimulatedProvider {

    /** The big model: tight limits, and overloaded on a few percent of calls. */
    public static final String OPUS = "claude-opus-4-7";

    /** The smaller model Opus falls back to. */
    public static final String SONNET = "claude-sonnet-4-5";

    /** The OpenAI-compatible model. */
    public static final String GPT = "gpt-4o-mini";

    static final ModelLimits OPUS_LIMITS = ModelLimits.of(60, 20_000, 4_000);

    static final ModelLimits SONNET_LIMITS = ModelLimits.of(300, 60_000, 20_000);

    static final ModelLimits GPT_LIMITS = ModelLimits.openAi(300, 60_000);

    private SimulatedProvider() {
    }

    /**
     * Starts the simulator on {@code port}.
     * @param port the loopback port
     * @return the running simulator
     */
    public static LlmSimulator start(int port) {
        return LlmSimulator.builder()
            .port(port)
            .model(OPUS, OPUS_LIMITS)
            .model(SONNET, SONNET_LIMITS)
            .model(GPT, GPT_LIMITS)
            .randomFaults(OPUS, RandomFaults.none().withOverloaded(0.08))
            .latency(Duration.ofMillis(150), Duration.ofMillis(2))
            .outputTokens(OutputTokens.fractionOfMaxTokens(0.6))
            .start();
    }

}
