/**
 * Heap held by llm-throttle: per call waiting in the admission queue, and for an idle
 * configured client. Run with
 * {@code java -XX:NativeMemoryTracking=summary -cp benchmarks/target/benchmarks.jar
 * io.github.llmthrottle.benchmarks.memory.WaiterMemory}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.memory;

import org.jspecify.annotations.NullMarked;
