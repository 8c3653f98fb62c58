/**
 * Page links (`case_pages`, migration 0023) from `case.page_linked`: the newest link of a
 * (pager, key) wins, and re-applying an event changes nothing.
 */
import type { CasePageLinked } from '../../domain/cases/events.ts';
import type { Projection } from '../projector.ts';

export const pagesProjection: Projection = {
  name: 'case-pages',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (recorded.type !== 'case.page_linked') continue;
      const d = (recorded as unknown as CasePageLinked).data;
      await trx
        .insertInto('case_pages')
        .values({ pager: d.pager, key: d.key, case_id: d.case_id, connection: d.connection, linked_at: d.at, event_position: recorded.globalPosition })
        .onConflict((oc) =>
          oc
            .columns(['pager', 'key'])
            .doUpdateSet((eb) => ({
              case_id: eb.ref('excluded.case_id'),
              connection: eb.ref('excluded.connection'),
              linked_at: eb.ref('excluded.linked_at'),
              event_position: eb.ref('excluded.event_position'),
            }))
            .where('case_pages.event_position', '<', (eb) => eb.ref('excluded.event_position')),
        )
        .execute();
    }
  },
};
