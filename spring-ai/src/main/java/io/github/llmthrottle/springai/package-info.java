/**
 * Spring AI integration: the {@code ChatClient} advisor that hands a call's
 * {@code llm.throttle.priority} and {@code llm.throttle.tenant} parameters to the
 * throttling of its HTTP calls, and the startup warning about stacked retry layers.
 */
@NullMarked
package io.github.llmthrottle.springai;

import org.jspecify.annotations.NullMarked;
