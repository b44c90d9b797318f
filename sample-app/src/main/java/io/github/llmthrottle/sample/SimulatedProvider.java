package io.github.llmthrottle.sample;

import java.time.Duration;

import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.OutputTokens;
import io.github.llmthrottle.test.RandomFaults;

/**
 * The embedded simulated providers the demo runs against when no API key is set, each on
 * a loopback port of its own: Anthropic models with deliberately tight limits (and an
 * overloaded Opus now and then, so that fallbacks show); a second Anthropic deployment of
 * Sonnet with lower limits (another region or workspace); and an OpenAI-compatible
 * provider, the fallback of another client.
 */
public final class SimulatedProvider {

    /** The big model: tight limits, and overloaded on a few percent of calls. */
    public static final String OPUS = "claude-opus-4-7";

    /** The smaller model Opus falls back to. */
    public static final String SONNET = "claude-sonnet-4-5";

    /** The OpenAI-compatible model. */
    public static final String GPT = "gpt-4o-mini";

    static final ModelLimits OPUS_LIMITS = ModelLimits.of(60, 20_000, 4_000);

    /** Sonnet's first deployment: two thirds of the model's tokens. */
    static final ModelLimits SONNET_LIMITS = ModelLimits.of(300, 40_000, 13_000);

    static final ModelLimits GPT_LIMITS = ModelLimits.openAi(300, 60_000);

    /** Sonnet's second deployment: fewer requests, and the other third of the tokens. */
    static final ModelLimits SONNET_EU_LIMITS = ModelLimits.of(120, 20_000, 7_000);

    private SimulatedProvider() {
    }

    /**
     * Starts the Anthropic simulator on {@code port}: Opus and Sonnet's first deployment
     * ({@code us}).
     * @param port the loopback port
     * @return the running simulator
     */
    public static LlmSimulator start(int port) {
        return LlmSimulator.builder()
            .port(port)
            .model(OPUS, OPUS_LIMITS)
            .model(SONNET, SONNET_LIMITS)
            .randomFaults(OPUS, RandomFaults.none().withOverloaded(0.08))
            .latency(Duration.ofMillis(150), Duration.ofMillis(2))
            .outputTokens(OutputTokens.fractionOfMaxTokens(0.6))
            .start();
    }

    /**
     * Starts the simulator of Sonnet's second deployment ({@code eu}) on {@code port}:
     * another region, with lower limits.
     * @param port the loopback port
     * @return the running simulator
     */
    public static LlmSimulator startSecondDeployment(int port) {
        return LlmSimulator.builder()
            .port(port)
            .model(SONNET, SONNET_EU_LIMITS)
            .latency(Duration.ofMillis(180), Duration.ofMillis(2))
            .outputTokens(OutputTokens.fractionOfMaxTokens(0.6))
            .start();
    }

    /**
     * Starts the OpenAI-compatible simulator on {@code port}: the {@code openai} client's
     * model, which questions fall back to when Anthropic cannot answer.
     * @param port the loopback port
     * @return the running simulator
     */
    public static LlmSimulator startOpenAi(int port) {
        return LlmSimulator.builder()
            .port(port)
            .model(GPT, GPT_LIMITS)
            .latency(Duration.ofMillis(120), Duration.ofMillis(2))
            .outputTokens(OutputTokens.fractionOfMaxTokens(0.6))
            .start();
    }

}
