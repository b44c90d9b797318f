/**
 * Auto-configuration of llm-throttle for the shared Redis store, beside the core
 * auto-configuration ({@code io.github.llmthrottle.autoconfigure}); wiring only.
 */
@NullMarked
package io.github.llmthrottle.store.redis.autoconfigure;

import org.jspecify.annotations.NullMarked;
