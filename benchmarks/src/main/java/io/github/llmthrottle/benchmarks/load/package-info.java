/**
 * The load comparison: llm-throttle against a hand-rolled retry loop, Resilience4j and
 * the official Anthropic SDK, all offered the same load by the same simulated provider.
 * Run with
 * {@code java -cp benchmarks/target/benchmarks.jar io.github.llmthrottle.benchmarks.load.LoadComparison}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.load;

import org.jspecify.annotations.NullMarked;
