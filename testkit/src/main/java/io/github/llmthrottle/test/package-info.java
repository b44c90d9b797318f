/**
 * A simulated LLM provider for tests: {@link io.github.llmthrottle.test.LlmSimulator}
 * serves the Anthropic Messages API and the OpenAI Chat Completions API on a loopback
 * port, enforces per-minute token buckets the way the real providers document them, and
 * injects faults on demand. {@link io.github.llmthrottle.test.LlmSimulatorExtension}
 * makes it one line to use from JUnit Jupiter.
 */
@NullMarked
package io.github.llmthrottle.test;

import org.jspecify.annotations.NullMarked;
