package io.github.llmthrottle;

import org.jspecify.annotations.Nullable;

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
    BATCH;

    /**
     * The priority of a name, ignoring case and surrounding white space
     * ({@code "realtime"} is {@link #REALTIME}).
     * @param name the name
     * @return the priority, or {@code null} when the name is none of them
     */
    public static @Nullable Priority fromName(String name) {
        String wanted = name.strip();
        for (Priority priority : values()) {
            if (priority.name().equalsIgnoreCase(wanted)) {
                return priority;
            }
        }
        return null;
    }

}
