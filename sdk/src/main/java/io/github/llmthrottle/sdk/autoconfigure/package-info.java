/**
 * Auto-configuration of llm-throttle for the official Anthropic and OpenAI SDK clients,
 * after the core auto-configuration ({@code io.github.llmthrottle.autoconfigure}); wiring
 * only.
 */
@NullMarked
package io.github.llmthrottle.sdk.autoconfigure;

import org.jspecify.annotations.NullMarked;
