/**
 * Delivery ids (adapters/actions/action.ts `deliveryIdOf`) are idempotency keys a receiver
 * already holds: a step re-executed after an upgrade must send the same one. Pinned to the
 * values of the first implementation (base64url of the SHA-256 of `run/step/pass[/item]`,
 * 32 characters). No database: it lives here because unit tests import no adapter.
 */
import { describe, expect, it } from 'vitest';
import { deliveryIdOf } from '../../../adapters/actions/action.ts';

describe('delivery ids', () => {
  it('stay what they were, per pass and item, for any run and step text', () => {
    expect(deliveryIdOf('run-1', 'notify', 1, null)).toBe('bKX9NBcvmg5RZThCkXf2fauXCdmACiRo');
    expect(deliveryIdOf('run-1', 'notify', 2, 0)).toBe('OAVIHLeVsoCEcXOFrMDTOh96h_PM0cVG');
    expect(deliveryIdOf('4f0e…ü', 'ステップ', 3, 12)).toBe('9cIi8g_umK56PETWVSqsa9R7bghklekK');
  });
});
