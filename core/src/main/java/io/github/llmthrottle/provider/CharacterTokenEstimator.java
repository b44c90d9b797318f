package io.github.llmthrottle.provider;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link TokenEstimator}: characters of prompt text divided by a
 * characters-per-token ratio, plus the estimated tokens of images and documents, starting
 * at 4 (English prose) and corrected per model from the usage the provider returns, as an
 * exponentially weighted moving average. It learns from the whole prompt the provider
 * read (cache reads included) against all its characters, and only from prompts of text
 * alone. The ratio is kept within [1, 8] so one odd response cannot derail it; the
 * estimate leans high (it is rounded up and a small per-request overhead is added)
 * because underestimating is what causes 429s.
 */
public final class CharacterTokenEstimator implements TokenEstimator {

    static final double INITIAL_CHARS_PER_TOKEN = 4.0;

    private static final double MIN_RATIO = 1.0;

    private static final double MAX_RATIO = 8.0;

    private static final double WEIGHT = 0.2;

    private static final long OVERHEAD_TOKENS = 8;

    private final Map<String, Double> charsPerToken = new ConcurrentHashMap<>();

    @Override
    public long estimateInputTokens(String model, LlmRequest request) {
        if (request.textCharacters() == 0 && request.mediaTokens() == 0 && request.bodyBytes() == 0) {
            return 0;
        }
        double ratio = ratio(model);
        return OVERHEAD_TOKENS + (long) Math.ceil(request.textCharacters() / ratio) + request.mediaTokens();
    }

    @Override
    public void observe(String model, LlmRequest request, long actualInputTokens) {
        // images and documents are estimated apart, and what the provider makes of them
        // is not known: only a prompt of text alone teaches the ratio
        long textTokens = actualInputTokens - OVERHEAD_TOKENS;
        if (!request.isTextOnly() || request.textCharacters() < 200 || textTokens <= 0) {
            return;
        }
        double observed = Math.max(MIN_RATIO, Math.min(MAX_RATIO, (double) request.textCharacters() / textTokens));
        this.charsPerToken.merge(model, observed, (old, next) -> old + WEIGHT * (next - old));
    }

    /**
     * The current characters-per-token ratio for {@code model}.
     * @param model the model
     * @return the ratio
     */
    public double ratio(String model) {
        return this.charsPerToken.getOrDefault(model, INITIAL_CHARS_PER_TOKEN);
    }

}
