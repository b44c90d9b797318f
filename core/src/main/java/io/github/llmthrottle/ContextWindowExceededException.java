package io.github.llmthrottle;

import java.text.NumberFormat;
import java.util.Locale;

/**
 * Thrown before a request is sent when its estimated size does not fit the context window
 * of its model ({@code llm.throttle.clients.NAME.models.MODEL.context-window}). The size
 * is the input estimated the way admission estimates it (text, images and documents) plus
 * the output the request reserves ({@code max_tokens} or {@code max_completion_tokens}):
 * Anthropic and OpenAI both refuse a request whose prompt and maximum output together
 * exceed the window.
 * <p>
 * A client error: the provider would refuse the request whatever the load, so it is never
 * retried and never waits. A {@link Throttled} method whose model's window is too small
 * is routed to the next candidate (model or fallback) whose window fits; when none fits,
 * or outside {@code @Throttled}, this exception reaches the caller.
 */
public class ContextWindowExceededException extends LlmThrottleException {

    private final long estimatedInputTokens;

    private final long maxOutputTokens;

    private final long contextWindow;

    /**
     * Creates the exception.
     * @param client the client name
     * @param model the model name
     * @param estimatedInputTokens the estimated input tokens of the request
     * @param maxOutputTokens the output tokens the request reserves (0 when it sets none)
     * @param contextWindow the model's context window in tokens
     */
    public ContextWindowExceededException(String client, String model, long estimatedInputTokens, long maxOutputTokens,
            long contextWindow) {
        super(message(client, model, estimatedInputTokens, maxOutputTokens, contextWindow), client, model, null, null);
        this.estimatedInputTokens = estimatedInputTokens;
        this.maxOutputTokens = maxOutputTokens;
        this.contextWindow = contextWindow;
    }

    private static String message(String client, String model, long input, long output, long window) {
        NumberFormat number = NumberFormat.getIntegerInstance(Locale.ROOT);
        String size = (output > 0)
                ? "an estimated " + number.format(input + output) + " tokens (" + number.format(input) + " input + "
                        + number.format(output) + " max output)"
                : "an estimated " + number.format(input) + " input tokens";
        return "Request needs " + size + ", more than the " + number.format(window) + "-token context window of "
                + describe(client, model) + "; it was not sent";
    }

    /**
     * The estimated input tokens of the request.
     * @return the estimate
     */
    public long getEstimatedInputTokens() {
        return this.estimatedInputTokens;
    }

    /**
     * The output tokens the request reserves ({@code max_tokens}).
     * @return the reserved output, 0 when the request sets none
     */
    public long getMaxOutputTokens() {
        return this.maxOutputTokens;
    }

    /**
     * What the request needs of a context window: estimated input plus reserved output.
     * @return the tokens needed
     */
    public long getRequiredTokens() {
        return this.estimatedInputTokens + this.maxOutputTokens;
    }

    /**
     * The context window of the model.
     * @return the window in tokens
     */
    public long getContextWindow() {
        return this.contextWindow;
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.CONTEXT_WINDOW;
    }

}
