/**
 * JMH micro-benchmarks of the per-request overhead of llm-throttle on the hot path,
 * without any network: request body reading, rate-limit header parsing, admission, and
 * the whole interceptor against a stub HTTP client. Run with
 * {@code java -jar benchmarks/target/benchmarks.jar}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.jmh;

import org.jspecify.annotations.NullMarked;
