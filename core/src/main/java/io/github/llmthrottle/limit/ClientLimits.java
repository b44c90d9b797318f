package io.github.llmthrottle.limit;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The limits of one configured client: its listed models, and the limits of any other
 * model called through it ({@code default-limits}).
 *
 * @param defaultLimits limits of models not listed, or {@code null} for no local limit
 * @param models limits per listed model
 */
public record ClientLimits(@Nullable ModelLimits defaultLimits, Map<String, ModelLimits> models) {

    public ClientLimits {
        models = Map.copyOf(models);
    }

}
