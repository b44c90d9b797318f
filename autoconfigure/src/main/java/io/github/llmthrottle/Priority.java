package io.github.llmthrottle;

/**
 * Priority of a call waiting for admission. Higher priorities are admitted first; within
 * a priority calls are admitted in arrival order, and waiting calls age so that
 * {@link #BATCH} work is never starved forever.
 */
public enum Priority {

    /** Interactive calls a person is waiting for. */
    REALTIME,

    /** The default priority. */
    NORMAL,

    /** Background work that may wait behind everything else. */
    BATCH

}
