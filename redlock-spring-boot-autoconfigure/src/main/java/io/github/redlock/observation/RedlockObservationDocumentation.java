package io.github.redlock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of distributed locks, with their key values.
 *
 * @author redlock contributors
 */
public enum RedlockObservationDocumentation implements ObservationDocumentation {

	/**
	 * One acquisition, from the call to the grant or failure: retries and waits between
	 * them included. Named {@code redlock.acquisition} by default; its span is a child of
	 * the caller's current observation.
	 */
	LOCK_ACQUISITION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockAcquisitionObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return AcquisitionLowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	},

	/**
	 * One lease held, from its acquisition to its release or loss (a loss carries the
	 * {@link io.github.redlock.LockLostException} as error). Named {@code redlock.hold}
	 * by default; its span is a sibling of the acquisition's, under the caller's
	 * observation. Reentrant acquisitions join the hold in progress.
	 */
	LOCK_HOLD {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockHoldObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return HoldLowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/**
	 * Low-cardinality key values of an acquisition.
	 */
	public enum AcquisitionLowCardinalityKeyNames implements KeyName {

		/**
		 * How it ended: {@code acquired}, {@code timed_out} (another owner held the lock
		 * for the whole wait time), {@code no_quorum}, {@code validity_exhausted},
		 * {@code interrupted}, {@code cancelled} or {@code error}; {@code unknown} while
		 * it runs.
		 */
		OUTCOME {

			@Override
			public String asString() {
				return "redlock.outcome";
			}

		},

		/**
		 * How the caller waits: {@code blocking} or {@code async} (reactive callers too).
		 */
		MODE {

			@Override
			public String asString() {
				return "redlock.mode";
			}

		},

		/**
		 * Whether the current thread held the key already and joined its lease:
		 * {@code true} or {@code false}.
		 */
		REENTRANT {

			@Override
			public String asString() {
				return "redlock.reentrant";
			}

		},

		/**
		 * The kind of lock asked for: {@code exclusive}, {@code read}, {@code write} or
		 * {@code permit}.
		 */
		KIND {

			@Override
			public String asString() {
				return "redlock.kind";
			}

		}

	}

	/**
	 * Low-cardinality key values of a hold.
	 */
	public enum HoldLowCardinalityKeyNames implements KeyName {

		/**
		 * How it ended: {@code released} or {@code lost}; {@code unknown} while held.
		 */
		OUTCOME {

			@Override
			public String asString() {
				return "redlock.outcome";
			}

		},

		/**
		 * The kind of lock held: {@code exclusive}, {@code read}, {@code write} or
		 * {@code permit}.
		 */
		KIND {

			@Override
			public String asString() {
				return "redlock.kind";
			}

		}

	}

	/**
	 * High-cardinality key values of acquisitions and holds: for traces, never for
	 * metrics.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * The lock's key, as the application gave it (without the key prefix).
		 */
		KEY {

			@Override
			public String asString() {
				return "redlock.key";
			}

		},

		/**
		 * The lease's fencing token; on an acquisition, only once acquired.
		 */
		FENCING_TOKEN {

			@Override
			public String asString() {
				return "redlock.fencing.token";
			}

			@Override
			public boolean isRequired() {
				return false;
			}

		}

	}

}
