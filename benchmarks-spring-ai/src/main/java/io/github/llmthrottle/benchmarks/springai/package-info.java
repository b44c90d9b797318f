/**
 * The load comparison's Spring AI contenders: Spring AI 2.0's Anthropic
 * {@code ChatClient} with its defaults, and with llm-throttle, on Spring AI's own
 * classpath (its {@code anthropic-java-core} 2.52), run by the benchmarks module's
 * harness. Run with
 * {@code java -cp benchmarks-spring-ai/target/benchmarks-spring-ai.jar io.github.llmthrottle.benchmarks.springai.SpringAiLoadComparison}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.springai;

import org.jspecify.annotations.NullMarked;
