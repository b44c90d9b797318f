package io.github.llmthrottle.client;

import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.provider.Usage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the usage a provider reports within sane bounds before it settles a reservation:
 * a negative count becomes 0, and a count above ten minutes of the model's limit (a
 * proxy's garbage, a unit mix-up) becomes one minute's worth, so it can hold the model
 * back for a minute at most (with a Redis store, the whole fleet). Either is logged. A
 * paid 200 never fails because of its usage.
 */
final class UsageBounds {

    private static final Log logger = LogFactory.getLog(UsageBounds.class);

    private static final long INSANE_MINUTES = 10;

    private UsageBounds() {
    }

    static Usage sane(Usage usage, ModelLimits limits, String client, String model) {
        long input = bound(usage.inputTokens(), limits.inputTokensPerMinute());
        long output = bound(usage.outputTokens(), limits.outputTokensPerMinute());
        // cache reads count against no limit, but teach the estimate and show in metrics
        long cacheRead = bound(usage.cacheReadTokens(), limits.inputTokensPerMinute());
        if (input == usage.inputTokens() && output == usage.outputTokens() && cacheRead == usage.cacheReadTokens()
                && usage.cacheWriteTokens() >= 0 && usage.promptTokens() >= 0) {
            return usage;
        }
        long cacheWrite = Math.max(0, Math.min(usage.cacheWriteTokens(), input));
        logger.warn(LogText.escape("Client '" + client + "', model '" + model
                + "': the provider reported implausible usage (input " + usage.inputTokens() + ", output "
                + usage.outputTokens() + ", cache read " + usage.cacheReadTokens() + " tokens); settled as input "
                + input + ", output " + output + ", cache read " + cacheRead));
        // OpenAI's cached tokens are part of its input tokens, Anthropic's cache reads
        // are not
        boolean readsCounted = usage.promptTokens() == usage.inputTokens();
        return new Usage(input, output, cacheRead, cacheWrite, readsCounted ? input : input + cacheRead);
    }

    private static long bound(long tokens, @Nullable Long perMinute) {
        if (tokens < 0) {
            return 0;
        }
        if (perMinute != null && tokens / INSANE_MINUTES > perMinute) {
            return perMinute;
        }
        return tokens;
    }

}
