// PartiQL through the AWS SDK for JavaScript v3: the DynamoDBDocumentClient's
// ExecuteStatementCommand (plain JavaScript values as parameters and items),
// BatchExecuteStatementCommand and ExecuteTransactionCommand, and the
// low-level client's DuplicateItemException.
//
//   DYNAROCK_BIN=build/dynarock node tests/e2e/js/test_partiql.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createTable, disconnect, rejectsWith, uniq } from './harness.mjs';

const ddb = await import('@aws-sdk/client-dynamodb');
const lib = await import('@aws-sdk/lib-dynamodb');
const { ExecuteStatementCommand: LowExecute } = ddb;
const { ExecuteStatementCommand, BatchExecuteStatementCommand, ExecuteTransactionCommand } = lib;

let client;
let doc;

before(async () => ({ client, doc } = await connect()));
after(disconnect);

describe('PartiQL with the DocumentClient', () => {
  const table = uniq('js-pq');

  test('insert, select by key and by partition, update, delete', async () => {
    await createTable(table, ['user', 'S'], ['at', 'N']);
    for (const at of [1, 2, 3]) {
      await doc.send(new ExecuteStatementCommand({
        Statement: `INSERT INTO "${table}" VALUE {'user': ?, 'at': ?, 'tags': ?}`,
        Parameters: ['ann', at, new Set(['x', `t${at}`])],
      }));
    }
    const one = await doc.send(new ExecuteStatementCommand({
      Statement: `SELECT * FROM "${table}" WHERE "user" = ? AND "at" = ?`, Parameters: ['ann', 2],
    }));
    assert.equal(one.Items.length, 1);
    assert.deepEqual(one.Items[0].tags, new Set(['x', 't2']));
    const recent = await doc.send(new ExecuteStatementCommand({
      Statement: `SELECT "at" FROM "${table}" WHERE "user" = 'ann' AND "at" > 1 ORDER BY "at" DESC`,
    }));
    assert.deepEqual(recent.Items, [{ at: 3 }, { at: 2 }]);
    const updated = await doc.send(new ExecuteStatementCommand({
      Statement: `UPDATE "${table}" SET seen = true WHERE "user" = 'ann' AND "at" = 1 RETURNING MODIFIED NEW *`,
    }));
    assert.deepEqual(updated.Items, [{ seen: true }]);
    await doc.send(new ExecuteStatementCommand({
      Statement: `DELETE FROM "${table}" WHERE "user" = 'ann' AND "at" = 3`,
    }));
    const left = await doc.send(new ExecuteStatementCommand({
      Statement: `SELECT * FROM "${table}" WHERE "user" = 'ann'`,
    }));
    assert.equal(left.Items.length, 2);
  });

  test('an existing item is a DuplicateItemException', async () => {
    await rejectsWith(client.send(new LowExecute({
      Statement: `INSERT INTO "${table}" VALUE {'user': 'ann', 'at': 1}`,
    })), 'DuplicateItemException', 'Duplicate primary key exists in table');
  });

  test('batches and transactions', async () => {
    const batch = await doc.send(new BatchExecuteStatementCommand({
      Statements: [
        { Statement: `SELECT * FROM "${table}" WHERE "user" = ? AND "at" = ?`, Parameters: ['ann', 1] },
        { Statement: `SELECT * FROM "${table}" WHERE "user" = ? AND "at" = ?`, Parameters: ['bob', 1] },
      ],
    }));
    assert.equal(batch.Responses[0].Item.seen, true);
    assert.equal(batch.Responses[1].Item, undefined);
    await doc.send(new ExecuteTransactionCommand({
      TransactStatements: [
        { Statement: `INSERT INTO "${table}" VALUE {'user': 'bob', 'at': 1}` },
        { Statement: `UPDATE "${table}" SET n = 1 WHERE "user" = 'ann' AND "at" = 2` },
      ],
    }));
    await rejectsWith(doc.send(new ExecuteTransactionCommand({
      TransactStatements: [
        { Statement: `INSERT INTO "${table}" VALUE {'user': 'cy', 'at': 1}` },
        { Statement: `INSERT INTO "${table}" VALUE {'user': 'bob', 'at': 1}` },
      ],
    })), 'TransactionCanceledException', /DuplicateItem/);
    const cy = await doc.send(new ExecuteStatementCommand({
      Statement: `SELECT * FROM "${table}" WHERE "user" = 'cy' AND "at" = 1`,
    }));
    assert.deepEqual(cy.Items, []);
  });
});
