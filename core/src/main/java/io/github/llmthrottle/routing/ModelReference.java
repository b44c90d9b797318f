package io.github.llmthrottle.routing;

import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A model of a configured client, as a fallback entry names it.
 * <p>
 * A fallback entry is written in the client it belongs to. It names either a model of
 * that client, as it is ({@code claude-sonnet-4-5}, {@code llama3:8b},
 * {@code anthropic.claude-3-5-sonnet-20240620-v1:0}), or a model of another client as
 * {@code CLIENT:MODEL}: the name of a configured client, a colon, and a model of that
 * client, which may itself contain colons and slashes ({@code openai:gpt-4o-mini},
 * {@code openrouter:meta-llama/llama-3-70b}, {@code bedrock:anthropic.claude-v2:1}).
 * <p>
 * An entry is resolved against the configured clients and models only, so that model
 * names containing colons are never misread: an entry that is exactly a model of the
 * writing client is that model; otherwise its part before the first colon must be a
 * configured client and the rest one of that client's models. An entry that could be read
 * both ways is refused at startup as ambiguous; {@code SAMECLIENT:ENTRY} (the writing
 * client's own name as the prefix) always names a model of the writing client.
 *
 * @param client the client
 * @param model the model of that client
 */
public record ModelReference(String client, String model) {

    /** Separates the client from the model in an entry naming another client's model. */
    public static final char SEPARATOR = ':';

    /**
     * Resolves a fallback entry.
     * @param entry the entry as written
     * @param client the client whose configuration (or annotation) holds the entry
     * @param models the models that may be named, by client name
     * @return the model the entry names
     * @throws InvalidReferenceException when the entry names no configured model or is
     * ambiguous
     */
    public static ModelReference resolve(String entry, String client, Map<String, Set<String>> models) {
        String name = entry.trim();
        ModelReference qualified = qualified(name, models);
        if (modelsOf(client, models).contains(name)) {
            if (qualified != null) {
                throw new InvalidReferenceException(
                        "is ambiguous: it is a model of client '" + client + "' and names model '" + qualified.model
                                + "' of client '" + qualified.client + "'",
                        "Write '" + client + SEPARATOR + name + "' for the model of client '" + client
                                + "', or rename one of them.");
            }
            return new ModelReference(client, name);
        }
        if (qualified != null) {
            return qualified;
        }
        int separator = name.indexOf(SEPARATOR);
        String prefix = (separator > 0) ? name.substring(0, separator) : null;
        if (prefix != null && models.containsKey(prefix)) {
            String model = name.substring(separator + 1);
            throw new InvalidReferenceException(
                    "names model '" + model + "' of client '" + prefix + "', which is not configured there",
                    "Use one of " + models.get(prefix) + " after '" + prefix + SEPARATOR
                            + "', or configure llm.throttle.clients." + prefix + ".models." + model
                            + " (with at least one property: YAML drops an empty '{ }').");
        }
        throw new InvalidReferenceException("is not configured for client '" + client + "'",
                "Use one of " + modelsOf(client, models) + ", or CLIENT" + SEPARATOR
                        + "MODEL for a model of another client (configured clients: " + models.keySet()
                        + "), or configure llm.throttle.clients." + client + ".models." + name
                        + " (with at least one property: YAML drops an empty '{ }').");
    }

    private static Set<String> modelsOf(String client, Map<String, Set<String>> models) {
        Set<String> known = models.get(client);
        return (known != null) ? known : Set.of();
    }

    private static @Nullable ModelReference qualified(String name, Map<String, Set<String>> models) {
        int separator = name.indexOf(SEPARATOR);
        if (separator <= 0) {
            return null;
        }
        String client = name.substring(0, separator);
        String model = name.substring(separator + 1);
        Set<String> known = models.get(client);
        return (known != null && known.contains(model)) ? new ModelReference(client, model) : null;
    }

    /**
     * How this model is named from {@code client}: the model alone for a model of that
     * client, {@code CLIENT:MODEL} for one of another client (the {@code to} tag of the
     * {@code llm.fallbacks} metric).
     * @param client the client the name is written from
     * @return the name
     */
    public String nameFrom(String client) {
        return this.client.equals(client) ? this.model : toString();
    }

    @Override
    public String toString() {
        return this.client + SEPARATOR + this.model;
    }

    /**
     * A fallback entry that names no configured model, or could name two.
     */
    public static final class InvalidReferenceException extends IllegalArgumentException {

        private final String reason;

        private final String action;

        InvalidReferenceException(String reason, String action) {
            super(reason);
            this.reason = reason;
            this.action = action;
        }

        /**
         * What is wrong with the entry, as the end of a sentence that starts with it.
         * @return the reason
         */
        public String getReason() {
            return this.reason;
        }

        /**
         * What would be valid.
         * @return the action
         */
        public String getAction() {
            return this.action;
        }

    }

}
