import { describe, expect, it } from 'vitest';
import { describeCycle, executionOrder, findCycle } from '../../../domain/runbooks/dag.ts';

const step = (id: string, ...needs: string[]) => ({ id, needs });

describe('executionOrder', () => {
  it('keeps declaration order when nothing depends on anything', () => {
    expect(executionOrder([step('c'), step('a'), step('b')])).toEqual(['c', 'a', 'b']);
  });

  it('puts every step after its needs', () => {
    expect(executionOrder([step('notify', 'enrich', 'contain'), step('contain', 'enrich'), step('enrich')])).toEqual(['enrich', 'contain', 'notify']);
  });

  it('breaks ties among ready steps by declaration order, not by name or readiness time', () => {
    // x, a and z are ready after root; b only after a, yet it still goes before z, declared later.
    const steps = [step('root'), step('x', 'root'), step('b', 'a'), step('a', 'root'), step('z', 'root')];
    expect(executionOrder(steps)).toEqual(['root', 'x', 'a', 'b', 'z']);
  });

  it('gives the same order on every call', () => {
    const steps = [step('d', 'b', 'c'), step('c', 'a'), step('b', 'a'), step('a')];
    expect(executionOrder(steps)).toEqual(['a', 'c', 'b', 'd']);
    expect(executionOrder(steps)).toEqual(executionOrder([...steps]));
  });

  it('ignores needs naming undeclared steps', () => {
    expect(executionOrder([step('a', 'ghost'), step('b')])).toEqual(['a', 'b']);
  });

  it('throws naming the cycle instead of dropping steps', () => {
    expect(() => executionOrder([step('a'), step('b', 'c'), step('c', 'b')])).toThrow('steps form a cycle through needs: b -> c -> b');
  });
});

describe('findCycle', () => {
  it('is null for an acyclic graph', () => {
    expect(findCycle([step('a'), step('b', 'a'), step('c', 'a', 'b')])).toBeNull();
  });

  it('returns the steps along one cycle, starting at its earliest-declared step', () => {
    const steps = [step('start'), step('c', 'b'), step('a', 'start', 'c'), step('b', 'a'), step('tail', 'b')];
    expect(findCycle(steps)).toEqual(['c', 'b', 'a']);
  });

  it('finds the cycle when the first blocked step only sits downstream of it', () => {
    expect(findCycle([step('down', 'x'), step('x', 'y'), step('y', 'x')])).toEqual(['x', 'y']);
  });

  it('treats a step that needs itself as a cycle of one', () => {
    expect(findCycle([step('a', 'a')])).toEqual(['a']);
  });

  it('formats a cycle for messages, closing the loop', () => {
    expect(describeCycle(['a', 'b', 'c'])).toBe('a -> b -> c -> a');
  });
});
