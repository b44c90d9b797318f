package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.InvalidThrottleConfigurationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Describes an {@link InvalidThrottleConfigurationException} the way Boot describes a bad
 * property: which property (or annotated method), which value, why, and what would be
 * valid. Registered in {@code spring.factories}; public so that the integration modules'
 * tests can read a startup failure as an application's log shows it.
 */
public class InvalidThrottleConfigurationFailureAnalyzer
        extends AbstractFailureAnalyzer<InvalidThrottleConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidThrottleConfigurationException cause) {
        StringBuilder description = new StringBuilder("Invalid llm-throttle configuration:\n\n");
        description.append("    ")
            .append(cause.getSubject().startsWith("llm.") ? "Property: " : "Where: ")
            .append(cause.getSubject())
            .append('\n');
        if (cause.getValue() != null) {
            description.append("    Value: \"").append(cause.getValue()).append("\"\n");
        }
        description.append("    Reason: ").append(cause.getReason());
        return new FailureAnalysis(description.toString(), cause.getAction(), cause);
    }

}
