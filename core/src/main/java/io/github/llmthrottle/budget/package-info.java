/**
 * Money: the prices of models, the cost of calls, and budgets per day and month of a
 * model, a client or a tenant, counted like the token quotas.
 */
@NullMarked
package io.github.llmthrottle.budget;

import org.jspecify.annotations.NullMarked;
