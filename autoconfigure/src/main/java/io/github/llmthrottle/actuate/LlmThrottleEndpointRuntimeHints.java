package io.github.llmthrottle.actuate;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The types the {@code llmthrottle} endpoint writes as JSON, for a native image: the web
 * extension answers with a {@code WebEndpointResponse<Object>}, whose body type Boot
 * cannot see from the operation's signature.
 */
public class LlmThrottleEndpointRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
                LlmThrottleEndpoint.ClientsDescriptor.class, LlmThrottleEndpoint.ModelStateDescriptor.class);
    }

}
