/**
 * User-facing types of llm-throttle: the {@link io.github.llmthrottle.Throttled}
 * annotation, {@link io.github.llmthrottle.Priority},
 * {@link io.github.llmthrottle.ThrottleContext}, the
 * {@link io.github.llmthrottle.LlmThrottleException} hierarchy, and the
 * {@link io.github.llmthrottle.InvalidThrottleConfigurationException} that stops the
 * application at startup when its configuration is invalid.
 */
@NullMarked
package io.github.llmthrottle;

import org.jspecify.annotations.NullMarked;
