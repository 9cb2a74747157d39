/**
 * Token-bucket arithmetic, shared by the process's reconcile limiter, the API client limiter and the per-XR circuit
 * breaker so they cannot disagree about refill. The state is a plain record the caller owns (the breaker keeps one
 * per XR inside its own per-XR record), and time is always passed in: nothing here reads a clock.
 */
export interface TokenBucketRate {
  /** Tokens added back per second. */
  readonly perSecond: number;
  /** Capacity: the most tokens the bucket holds, and so the largest burst it allows. */
  readonly burst: number;
}

export interface TokenBucketState {
  /** Tokens available at `updatedAtMs`. May be negative after `reserve`: that is a backlog of promised slots. */
  tokens: number;
  updatedAtMs: number;
}

/** A bucket that starts full, as client-go's and Crossplane's do, so a quiet start is never throttled. */
export function fullBucket(rate: TokenBucketRate, nowMs: number): TokenBucketState {
  return { tokens: rate.burst, updatedAtMs: nowMs };
}

/** Adds the tokens earned since the last update, capped at the burst. A clock that steps back earns nothing. */
export function refill(bucket: TokenBucketState, rate: TokenBucketRate, nowMs: number): void {
  const elapsedMs = nowMs - bucket.updatedAtMs;
  if (elapsedMs <= 0) return;
  bucket.tokens = Math.min(rate.burst, bucket.tokens + (elapsedMs * rate.perSecond) / 1000);
  bucket.updatedAtMs = nowMs;
}

/** Takes `cost` tokens if they are all there (refilling first); otherwise takes nothing and returns false. */
export function tryTake(bucket: TokenBucketState, rate: TokenBucketRate, cost: number, nowMs: number): boolean {
  refill(bucket, rate, nowMs);
  if (bucket.tokens < cost) return false;
  bucket.tokens -= cost;
  return true;
}

/**
 * Takes one token now even if the bucket is empty and returns how long (ms) the caller must wait before acting,
 * like golang.org/x/time/rate's Reserve: successive reservations on an empty bucket are spaced 1/rate apart, so
 * a limiter built on this delays work and never drops it.
 */
export function reserve(bucket: TokenBucketState, rate: TokenBucketRate, nowMs: number): number {
  refill(bucket, rate, nowMs);
  bucket.tokens -= 1;
  if (bucket.tokens >= 0) return 0;
  return (-bucket.tokens * 1000) / rate.perSecond;
}

/**
 * Tolerance for float drift: a wait computed as (1 - tokens) / rate, slept exactly, must find its token, so a
 * shortfall smaller than this counts as a whole token.
 */
const EPSILON = 1e-9;

/**
 * Takes one token and returns 0 if one is there (refilling first); otherwise takes nothing and returns how long
 * (ms) until one will be. Unlike `reserve` nothing is promised: the caller asks again when the time comes, so
 * whoever asks then gets the token. The work queue meters dispatches with this, so the order of its line, not the
 * order of adds, decides who is served first.
 */
export function takeOrWait(bucket: TokenBucketState, rate: TokenBucketRate, nowMs: number): number {
  refill(bucket, rate, nowMs);
  if (bucket.tokens >= 1 - EPSILON) {
    bucket.tokens -= 1;
    return 0;
  }
  return ((1 - bucket.tokens) * 1000) / rate.perSecond;
}

/** Returns one token taken by `takeOrWait` that could not be used, so the next in line gets it; capped at the burst. */
export function giveBack(bucket: TokenBucketState, rate: TokenBucketRate): void {
  bucket.tokens = Math.min(rate.burst, bucket.tokens + 1);
}
