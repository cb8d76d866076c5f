import { z } from 'zod';
import { jsonSchemaProblem } from '../../src/runtime/json-schema-check';

const Line = z.strictObject({ sku: z.string().min(1), quantity: z.number().int().positive() });
const Order = z.object({
  orderId: z.string().length(8),
  amountCents: z.number().int().min(0),
  currency: z.enum(['EUR', 'USD']),
  kind: z.literal('order'),
  lines: z.array(Line).min(1),
  coupon: z.string().nullable().optional(),
  pair: z.tuple([z.string(), z.number()]),
  tags: z.record(z.string(), z.boolean()),
  either: z.union([z.string(), z.object({ id: z.number() })]),
});
const schema = z.toJSONSchema(Order, { io: 'input' }) as Record<string, unknown>;
const valid = { orderId: 'o-000001', amountCents: 250, currency: 'EUR', kind: 'order', lines: [{ sku: 'a', quantity: 2 }], pair: ['x', 1], tags: { gift: true }, either: { id: 3 } };

describe('the runtime check of a JSON Schema zod wrote', () => {
  it.each([
    ['a valid order', valid],
    ['an optional field left out, a nullable one null', { ...valid, coupon: null }],
    ['a wrong type', { ...valid, amountCents: '250' }],
    ['a missing field', (({ currency: _c, ...rest }) => rest)(valid)],
    ['a field the schema does not name (zod lets it pass)', { ...valid, extra: 1 }],
    ['a field a strict object does not name', { ...valid, lines: [{ sku: 'a', quantity: 1, extra: 1 }] }],
    ['a value outside the enum', { ...valid, currency: 'GBP' }],
    ['another literal', { ...valid, kind: 'refund' }],
    ['a fraction where an integer goes', { ...valid, amountCents: 2.5 }],
    ['a bound broken deep inside', { ...valid, lines: [{ sku: 'a', quantity: 0 }] }],
    ['an empty array below its minimum', { ...valid, lines: [] }],
    ['a string of the wrong length', { ...valid, orderId: 'o-1' }],
    ['a tuple item of the wrong type', { ...valid, pair: ['x', 'y'] }],
    ['a record value of the wrong type', { ...valid, tags: { gift: 'yes' } }],
    ['no union member', { ...valid, either: { id: 'x' } }],
    ['not an object at all', [valid]],
    ['null', null],
  ])('agrees with zod on %s', (_, value) => {
    const problem = jsonSchemaProblem(schema, value);
    expect({ accepted: problem === undefined, problem }).toMatchObject({ accepted: Order.safeParse(value).success });
  });

  it('names where the value went wrong', () => {
    expect(jsonSchemaProblem(schema, { ...valid, lines: [{ sku: 'a', quantity: 'two' }] })).toBe('lines[0].quantity must be integer, not string "two"');
    expect(jsonSchemaProblem(schema, (({ currency: _c, ...rest }) => rest)(valid))).toBe('currency is missing');
  });

  it('follows a recursive schema without looping', () => {
    type Node = { name: string; children: Node[] };
    const Tree: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    const tree = z.toJSONSchema(Tree, { io: 'input' }) as Record<string, unknown>;
    expect(jsonSchemaProblem(tree, { name: 'a', children: [{ name: 'b', children: [] }] })).toBeUndefined();
    expect(jsonSchemaProblem(tree, { name: 'a', children: [{ name: 2, children: [] }] })).toMatch(/children\[0\]\.name must be string/);
  });
});
