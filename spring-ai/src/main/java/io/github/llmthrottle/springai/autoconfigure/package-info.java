/**
 * Auto-configuration of llm-throttle for Spring AI's Anthropic and OpenAI models and
 * ChatClient, after the core auto-configuration
 * ({@code io.github.llmthrottle.autoconfigure}); wiring only.
 */
@NullMarked
package io.github.llmthrottle.springai.autoconfigure;

import org.jspecify.annotations.NullMarked;
