package io.github.llmthrottle;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when llm-throttle's configuration is invalid: a property value, or a
 * {@code @Throttled} annotation. The auto-configuration's failure analyzer turns it into
 * a message that names what is wrong and what would be valid.
 */
public class InvalidThrottleConfigurationException extends RuntimeException {

    private final String subject;

    private final @Nullable String value;

    private final String reason;

    private final String action;

    /**
     * Creates a new instance.
     * @param subject the property name (or annotated method) that is wrong
     * @param value the offending value as text (never a secret), or {@code null}
     * @param reason why it is wrong
     * @param action what would be valid
     */
    public InvalidThrottleConfigurationException(String subject, @Nullable String value, String reason, String action) {
        super(subject + ((value != null) ? " = '" + value + "'" : "") + ": " + reason + ". " + action);
        this.subject = subject;
        this.value = value;
        this.reason = reason;
        this.action = action;
    }

    public String getSubject() {
        return this.subject;
    }

    public @Nullable String getValue() {
        return this.value;
    }

    public String getReason() {
        return this.reason;
    }

    public String getAction() {
        return this.action;
    }

}
