/**
 * Auto-configuration of llm-throttle for WebFlux's {@code WebClient}, after the core
 * auto-configuration ({@code io.github.llmthrottle.autoconfigure}); wiring only.
 */
@NullMarked
package io.github.llmthrottle.webclient.autoconfigure;

import org.jspecify.annotations.NullMarked;
