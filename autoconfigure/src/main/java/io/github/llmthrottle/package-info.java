/**
 * User-facing types of llm-throttle: the {@link io.github.llmthrottle.Throttled} annotation,
 * {@link io.github.llmthrottle.Priority}, {@link io.github.llmthrottle.ThrottleContext} and the
 * {@link io.github.llmthrottle.LlmThrottleException} hierarchy.
 */
@NullMarked
package io.github.llmthrottle;

import org.jspecify.annotations.NullMarked;
