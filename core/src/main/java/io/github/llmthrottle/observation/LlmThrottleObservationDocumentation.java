package io.github.llmthrottle.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of throttled calls and their keys. Both observations have the same
 * low-cardinality keys, with a value for every outcome ({@code none} or {@code unknown}
 * where there is nothing to say), because Boot turns each observation into a timer and
 * Prometheus refuses a meter whose tag keys differ from an earlier one of the same name.
 */
public enum LlmThrottleObservationDocumentation implements ObservationDocumentation {

    /**
     * One logical call through a throttled client, from the request to its settled
     * response: admission, every attempt and the back-off sleeps between them (for a
     * streamed response, until the stream ends).
     */
    CALL {

        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultLlmThrottleCallObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return LowCardinalityKeyNames.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] { HighCardinalityKeyNames.REQUEST_ID, HighCardinalityKeyNames.INPUT_TOKENS,
                    HighCardinalityKeyNames.OUTPUT_TOKENS, HighCardinalityKeyNames.ATTEMPTS,
                    HighCardinalityKeyNames.REJECTION };
        }

    },

    /**
     * One HTTP attempt of a call, from its admission to its response (for a stream, until
     * the stream ends): the provider's time, apart from the queue wait before it and the
     * back-off sleep after it.
     */
    ATTEMPT {

        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultLlmThrottleAttemptObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return LowCardinalityKeyNames.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] { HighCardinalityKeyNames.REQUEST_ID, HighCardinalityKeyNames.INPUT_TOKENS,
                    HighCardinalityKeyNames.OUTPUT_TOKENS, HighCardinalityKeyNames.ATTEMPT_NUMBER,
                    HighCardinalityKeyNames.STATUS, HighCardinalityKeyNames.QUEUE_WAIT,
                    HighCardinalityKeyNames.BACK_OFF };
        }

    };

    /** The low-cardinality keys of both observations. */
    public enum LowCardinalityKeyNames implements KeyName {

        /** The configured client. */
        CLIENT {

            @Override
            public String asString() {
                return "client";
            }

        },

        /** The model the call is for. */
        MODEL {

            @Override
            public String asString() {
                return "model";
            }

        },

        /** The call's priority: {@code realtime}, {@code normal} or {@code batch}. */
        PRIORITY {

            @Override
            public String asString() {
                return "priority";
            }

        },

        /**
         * How it ended. A call: {@code success}, {@code failed} or {@code rejected} (as
         * {@code llm.calls}, except that a streamed call whose stream ends with an error
         * event is {@code failed}). An attempt: {@code success}, {@code rate_limited},
         * {@code overloaded}, {@code client_error}, {@code server_error},
         * {@code io_error} (as {@code llm.requests}) or {@code cancelled}.
         * {@code unknown} until it ends, or when it ended with an unexpected exception.
         */
        OUTCOME {

            @Override
            public String asString() {
                return "outcome";
            }

        }

    }

    /** The high-cardinality keys, each present only when there is a value. */
    public enum HighCardinalityKeyNames implements KeyName {

        /**
         * The provider's request id of the (last) response: {@code request-id} or
         * {@code x-request-id}.
         */
        REQUEST_ID {

            @Override
            public String asString() {
                return "provider.request.id";
            }

        },

        /** Input tokens the provider counted, when it reported them. */
        INPUT_TOKENS {

            @Override
            public String asString() {
                return "gen_ai.usage.input_tokens";
            }

        },

        /** Output tokens the provider counted, when it reported them. */
        OUTPUT_TOKENS {

            @Override
            public String asString() {
                return "gen_ai.usage.output_tokens";
            }

        },

        /** How many attempts a call made. */
        ATTEMPTS {

            @Override
            public String asString() {
                return "llm.throttle.attempts";
            }

        },

        /**
         * Why a call was refused without (another) attempt: {@code queue_full},
         * {@code max_wait}, {@code tenant_quota}, {@code circuit_open} or
         * {@code retry_after_too_long}.
         */
        REJECTION {

            @Override
            public String asString() {
                return "llm.throttle.rejection";
            }

        },

        /** Which attempt of its call this is, from 1. */
        ATTEMPT_NUMBER {

            @Override
            public String asString() {
                return "llm.throttle.attempt.number";
            }

        },

        /** The HTTP status of the attempt's response. */
        STATUS {

            @Override
            public String asString() {
                return "http.response.status_code";
            }

        },

        /** Seconds the attempt waited for admission before it was sent. */
        QUEUE_WAIT {

            @Override
            public String asString() {
                return "llm.throttle.queue.wait";
            }

        },

        /** Seconds slept before the attempt, after the previous one failed. */
        BACK_OFF {

            @Override
            public String asString() {
                return "llm.throttle.back_off";
            }

        }

    }

}
