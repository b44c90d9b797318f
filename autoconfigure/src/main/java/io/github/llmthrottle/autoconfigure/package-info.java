/**
 * Auto-configuration and configuration properties of llm-throttle; wiring only.
 */
@NullMarked
package io.github.llmthrottle.autoconfigure;

import org.jspecify.annotations.NullMarked;
