/**
 * Auto-configuration of llm-throttle for LangChain4j's models, after the core
 * auto-configuration ({@code io.github.llmthrottle.autoconfigure}); wiring only.
 */
@NullMarked
package io.github.llmthrottle.langchain4j.autoconfigure;

import org.jspecify.annotations.NullMarked;
